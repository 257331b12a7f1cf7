// The whole drill on loopback: gateway + seats (LiteLLM/vLLM stand-ins), a real upsd per site UPS
// (Debian nut-server), BMC/firewall listeners, and the GPU query stand-ins behind an ssh stand-in.
import { fileURLToPath } from 'node:url';
import type { Fleet } from '../src/inventory/fleet.ts';
import { SEED_000, startDrillFleet, type DrillScenario } from './litellm.ts';
import { startOobListeners } from './oob.ts';
import { startUpsd, upsdUnavailableReason, type Upsd } from './upsd.ts';

export const DRILL_BIN = fileURLToPath(new URL('./bin', import.meta.url));
export const DRILL_INVENTORY = fileURLToPath(new URL('./fleet.yaml', import.meta.url));

/** The drill UPSes: fv's Eaton 1500 VA (no realpower.nominal, as such units report) and ana's. */
export const UPS_STATE: Record<string, Record<string, string>> = {
  fvups: { 'ups.status': 'OL', 'ups.load': '34', 'ups.power.nominal': '1500', 'battery.charge': '100', 'battery.runtime': '1540', 'ups.mfr': 'EATON', 'ups.model': '5S 1500' },
  anaups: { 'ups.status': 'OL', 'ups.load': '41', 'ups.realpower.nominal': '2700', 'battery.charge': '100', 'battery.runtime': '2210', 'ups.mfr': 'EATON', 'ups.model': '9PX 3000' },
};

export interface Drill {
  /** Environment for the probes: the drill's gateway keys. */
  env: Record<string, string>;
  pathPrefix: string[];
  notes: string[];
  stop(): Promise<void>;
}

export async function startDrill(fleet: Fleet, scenario: DrillScenario = SEED_000): Promise<Drill> {
  const stops: (() => Promise<void>)[] = [];
  const notes: string[] = [];
  const stop = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    const gw = await startDrillFleet(fleet, scenario);
    stops.push(() => gw.stop());
    const oob = await startOobListeners(fleet);
    stops.push(() => oob.stop());
    const reason = upsdUnavailableReason();
    for (const site of Object.values(fleet.inventory.sites)) {
      if (!site.ups) continue;
      if (reason) {
        notes.push(`no upsd for ${site.ups.name}: ${reason} (apt-get install nut-server)`);
        continue;
      }
      const ups: Upsd = await startUpsd({ upsName: site.ups.name, port: site.ups.port, host: site.ups.host, dev: UPS_STATE[site.ups.name] ?? { 'ups.status': 'OL' } });
      stops.push(() => ups.stop());
    }
    return { env: gw.env, pathPrefix: [DRILL_BIN], notes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
