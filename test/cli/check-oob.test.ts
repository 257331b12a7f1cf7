// `seat check` and the out-of-band path (seed 002's OOB design gap): a site whose every BMC and UPS
// reaches out only through its own firewall is warned of, once per site, with what it means; a BMC
// with a separate path (via: separate) says so and lifts the warning; the vantage this machine's
// findings will name is said; a path the inventory cannot mean is refused, naming what is wrong.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliIo } from '../../src/cli/run.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-check-oob-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(sites: string, env: NodeJS.ProcessEnv = {}, top = ''): Promise<{ code: number; out: string; err: string }> {
  const file = join(dir, `fleet-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, `${top}gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }\nsites:\n${sites}`);
  let out = '';
  let err = '';
  const io: CliIo = { stdout: { write: (s: string) => (out += s), isTTY: false }, stderr: { write: (s: string) => (err += s) }, env: { SEAT_PROBE_MEMORY: 'off', ...env } };
  const code = await runCli(['check', '--inventory', file], io);
  return { code, out, err };
}

const WARNING = /warning: every out-of-band device of (\S+) \(([^)]*)\) is reached through the site's own firewall: a site-wide loss takes the BMC with it: power the firewall and BMC from the UPS, or give the BMC a separate path/g;

test('every BMC and the UPS riding the site’s own firewall: warned once per site, with what it means', async () => {
  const r = await check(`  fv:
    hosts: { fv-ml1: { address: 127.0.1.10 } }
    ups: { host: 127.0.1.12, name: fvups }
    bmc:
      fv-ml1-bmc: { address: 127.0.1.11 }
      fv-ml2-bmc: { address: 127.0.1.13, via: firewall }
    firewall: { address: 127.0.1.1 }
  ana:
    hosts: { ana-ml2: { address: 127.0.2.20 } }
    bmc: { ana-ml2-bmc: { address: 127.0.2.21 } }
    firewall: { address: 127.0.2.17 }
`);
  assert.equal(r.code, 0, r.err);
  const warned = [...r.out.matchAll(WARNING)].map((m) => [m[1], m[2]]);
  assert.deepEqual(warned, [
    ['fv', 'fv-ml1-bmc, fv-ml2-bmc, fvups'],
    ['ana', 'ana-ml2-bmc'],
  ]);
  assert.match(r.out, /^ {2}bmc {2}fv-ml1-bmc 127\.0\.1\.11, via the site firewall$/m);
});

test('a BMC with a separate path: said with its path, and its site is not warned of', async () => {
  const r = await check(`  fv:
    hosts: { fv-ml1: { address: 127.0.1.10 } }
    bmc: { fv-ml1-bmc: { address: 127.0.1.11, via: separate, path: { name: lte-router, address: 127.0.4.50, tcpPorts: [443] } } }
    firewall: { address: 127.0.1.1 }
  irv:
    hosts: { irv-ml1: { address: 127.0.3.30 } }
`);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^ {2}bmc {2}fv-ml1-bmc 127\.0\.1\.11, via a separate path lte-router 127\.0\.4\.50, tcp 443$/m);
  assert.deepEqual([...r.out.matchAll(WARNING)], [], 'no site has every out-of-band device behind its firewall (irv has none)');
});

test('the vantage the findings will name: SEAT_VANTAGE, else the inventory’s, else the host name', async () => {
  const site = '  fv:\n    hosts: { fv-ml1: { address: 127.0.1.10 } }\n';
  assert.match((await check(site, { SEAT_VANTAGE: 'hq' })).out, /^vantage \(where this machine's findings say they were measured from\): hq \(from SEAT_VANTAGE\)$/m);
  assert.match((await check(site, {}, 'vantage: hq-replica\n')).out, /^vantage \(where this machine's findings say they were measured from\): hq-replica \(the inventory's vantage:\)$/m);
  assert.match((await check(site, { SEAT_VANTAGE: 'hq' }, 'vantage: hq-replica\n')).out, /: hq \(from SEAT_VANTAGE\)$/m, 'SEAT_VANTAGE wins');
  assert.match((await check(site)).out, /^vantage \(where this machine's findings say they were measured from\): \S+ \(the host name: set SEAT_VANTAGE or vantage: to name it\)$/m);
});

test('a path the inventory cannot mean is refused, naming what is wrong', async () => {
  const noPath = await check(`  fv:
    hosts: { fv-ml1: { address: 127.0.1.10 } }
    bmc: { fv-ml1-bmc: { address: 127.0.1.11, via: separate } }
`);
  assert.equal(noPath.code, 2);
  assert.match(noPath.err, /via: separate needs the path to probe/);
  const noFirewall = await check(`  fv:
    hosts: { fv-ml1: { address: 127.0.1.10 } }
    bmc: { fv-ml1-bmc: { address: 127.0.1.11, via: firewall } }
`);
  assert.equal(noFirewall.code, 2);
  assert.match(noFirewall.err, /via: firewall, but this site names no firewall/);
});
