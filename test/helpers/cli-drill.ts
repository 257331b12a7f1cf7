// The drill fleet's stand-ins on ephemeral loopback ports, with its inventory written to a temp file
// the terminal front end can be pointed at.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { startDrillFleet, type DrillFleet } from '../../drills/litellm.ts';
import { DRILL_INVENTORY } from '../../drills/drill.ts';

export interface CliDrill {
  drill: DrillFleet;
  /** The drill inventory as a file, with a 1.5 s probe timeout. */
  inventory: string;
  /** A temp folder of its own, removed by stop(). */
  dir: string;
  stop(): Promise<void>;
}

export async function startCliDrill(prefix: string): Promise<CliDrill> {
  const r = parseInventory(await readFile(DRILL_INVENTORY, 'utf8'));
  if (!r.ok) throw new Error(r.errors.join('\n'));
  const drill = await startDrillFleet(new Fleet(r.value), undefined, { ephemeralPorts: true, env: {} });
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const inventory = join(dir, 'fleet.yaml');
  const inv = structuredClone(drill.fleet.inventory);
  inv.settings.probeTimeoutMs = 1500;
  await writeFile(inventory, stringify(inv));
  return {
    drill,
    inventory,
    dir,
    stop: async () => {
      await drill.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
