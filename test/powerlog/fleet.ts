// The inventories the power log tests compare with: seed 002's sites on documentation addresses,
// fv behind a 120 V 1500 VA Eaton (900 W).
import assert from 'node:assert/strict';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';

const GATEWAY = 'gateway: { baseUrl: http://192.0.2.40:4000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }';

/** fv (1500 VA / 900 W), ana (3000 VA / 2700 W) and irv (no UPS). */
export const SEED_FLEET = `${GATEWAY}
settings: { upsLoadWarnPct: 80 }
sites:
  fv:
    hosts:
      fv-ml1: { address: 192.0.2.10, ssh: ops@192.0.2.10, gpus: [{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }] }
    ups: { host: 192.0.2.2, port: 3493, name: fvups, ratedVA: 1500, ratedW: 900 }
  ana:
    hosts:
      ana-ml2: { address: 192.0.2.20, ssh: ops@192.0.2.20, gpus: [{ index: 0 }, { index: 1 }] }
    ups: { host: 192.0.2.22, name: anaups, ratedVA: 3000, ratedW: 2700 }
  irv:
    hosts:
      irv-ml1: { address: 192.0.2.30, ssh: ops@192.0.2.30 }
`;

/** Only fv has a UPS, and it is rated as `ups` says. */
export function fvOnly(ups: string): string {
  return `${GATEWAY}
sites:
  fv:
    hosts:
      fv-ml1: { address: 192.0.2.10, gpus: [{ index: 0 }] }
    ups: { host: 192.0.2.2, name: fvups, ${ups} }
  irv:
    hosts:
      irv-ml1: { address: 192.0.2.30 }
`;
}

export function fleetOf(yaml: string): Fleet {
  const loaded = parseInventory(yaml, 'test-fleet.yaml');
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.errors.join('\n'));
  return new Fleet(loaded.value);
}
