// The drill fleet's gateway side: one LiteLLM-speaking gateway on the inventory's base URL, routing each
// alias to a vLLM stand-in per inventory seat on its host's loopback address, in a chosen scenario.
import { randomBytes } from 'node:crypto';
import { Fleet } from '../../src/inventory/fleet.ts';
import { assertLoopback, freePort, httpUrl, unbracket } from '../net.ts';
import { startGateway, type AliasBehaviour, type GatewayServer, type GatewayTuning } from './gateway.ts';
import { startSeat, type SeatBehaviour, type SeatServer } from './seat.ts';

export interface DrillScenario {
  /** Merged over each alias's default behaviour (ok, routed to its seat, registered for every key). */
  aliases?: Record<string, Partial<AliasBehaviour>>;
  /** Merged over each seat's default (healthy, serving a model named after the seat). */
  seats?: Record<string, Partial<SeatBehaviour>>;
  /** Seats not started at all: their address refuses connections. */
  seatsDown?: string[];
  /** Gateway-wide behaviour (a huge /v1/models listing, the access-denied status). */
  gateway?: Partial<GatewayTuning>;
}

/** Seed 000's state: `vllm-embed` OOM-crashed (/health 503, so qwen3-embed gets 500s through the
 * gateway), and `gen-large` registered for the admin key but not the shared one. */
export const SEED_000: DrillScenario = {
  seats: { 'vllm-embed': { health: 503 } },
  aliases: { 'gen-large': { keys: ['admin'] } },
};

export interface DrillOptions {
  /** Where key secrets are read from (the inventory's env names); missing ones get a random drill key. */
  env?: NodeJS.ProcessEnv;
  /** Bind port 0 everywhere (parallel tests) instead of the inventory's ports; `fleet` says where. */
  ephemeralPorts?: boolean;
}

export interface DrillFleet {
  /** The fleet as started: the input one, or with the ephemeral ports written in. */
  fleet: Fleet;
  gateway: GatewayServer;
  seats: Map<string, SeatServer>;
  /** key name → secret, as the gateway accepts them. */
  keys: Record<string, string>;
  /** The key variables (LITELLM_ADMIN_KEY=...) to hand to a probe. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts the gateway on the inventory's base URL and one vLLM stand-in per seat on its host's address. */
export async function startDrillFleet(fleet: Fleet, scenario: DrillScenario = SEED_000, opts: DrillOptions = {}): Promise<DrillFleet> {
  const inv = structuredClone(fleet.inventory);
  const base = new URL(inv.gateway.baseUrl);
  const gwHost = unbracket(base.hostname);
  // Every address first, so a bad inventory starts nothing.
  for (const host of [gwHost, ...[...fleet.seats.values()].map((s) => s.host.host.address)]) assertLoopback(host);
  const source = opts.env ?? process.env;
  const keys: Record<string, string> = {};
  const env: Record<string, string> = {};
  for (const [name, k] of Object.entries(inv.gateway.keys)) {
    keys[name] = source[k.env] || `sk-drill-${name}-${randomBytes(8).toString('hex')}`;
    env[k.env] = keys[name];
  }

  const seats = new Map<string, SeatServer>();
  const started: { stop(): Promise<void> }[] = [];
  try {
    for (const [name, ref] of fleet.seats) {
      const kinds = new Set([...fleet.aliases.values()].filter((a) => a.alias.seats.includes(name)).map((a) => a.alias.kind));
      const kind = kinds.size === 1 ? [...kinds][0] : undefined;
      const address = ref.host.host.address;
      const seatInv = inv.seats[name]!;
      if (scenario.seatsDown?.includes(name)) {
        if (opts.ephemeralPorts) seatInv.port = await freePort(address);
        continue;
      }
      const seat = await startSeat({
        host: address,
        port: opts.ephemeralPorts ? 0 : ref.seat.port,
        model: name,
        maxModelLen: ref.seat.maxModelLen ?? 8192,
        ...(kind ? { kind } : {}),
        ...scenario.seats?.[name],
      });
      started.push(seat);
      seats.set(name, seat);
      seatInv.port = seat.port;
    }
    const aliases: Record<string, AliasBehaviour> = {};
    for (const [name, ref] of fleet.aliases) {
      const first = ref.seats[0];
      const seat = first ? seats.get(first.name) : undefined;
      const backend = first ? (seat?.url ?? httpUrl(first.host.host.address, inv.seats[first.name]!.port)) : undefined;
      aliases[name] = {
        mode: 'ok',
        kind: ref.alias.kind,
        ...(backend && first ? { backend, backendModel: first.name } : {}),
        ...scenario.aliases?.[name],
      };
    }
    const gateway = await startGateway({ ...scenario.gateway, host: gwHost, port: opts.ephemeralPorts ? 0 : Number(base.port || 80), keys, aliases });
    started.push(gateway);
    inv.gateway.baseUrl = gateway.url;
    return {
      fleet: new Fleet(inv),
      gateway,
      seats,
      keys,
      env,
      stop: async () => {
        await Promise.all(started.map((s) => s.stop()));
      },
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    throw err;
  }
}
