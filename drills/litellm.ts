// Loopback stand-ins that speak LiteLLM's proxy API and vLLM's OpenAI server: the gateway
// (litellm/gateway.ts), the seats (litellm/seat.ts) and the drill fleet that wires them (litellm/fleet.ts).
// Tests import everything from here.
export { startGateway, fillerModel, type AliasBehaviour, type AliasMode, type GatewayOptions, type GatewayServer, type GatewayTuning, type RecordedRequest } from './litellm/gateway.ts';
export { startSeat, CUDA_OOM, type SeatBehaviour, type SeatMode, type SeatOptions, type SeatServer } from './litellm/seat.ts';
export { startDrillFleet, SEED_000, type DrillFleet, type DrillOptions, type DrillScenario } from './litellm/fleet.ts';
