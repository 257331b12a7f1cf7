// The summed draw beside the UPS's rating, from an inventory parsed as the real one is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chooseUps, compareWithUps, summarisePowerLog, type PowerLogSummary } from '../../src/powerlog/index.ts';
import { powerlogToTerminal } from '../../src/cli/powerlog.ts';
import type { Ups } from '../../src/inventory/schema.ts';
import { fleetOf, fvOnly, SEED_FLEET } from './fleet.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/powerlog/fv-ml1-power.log', import.meta.url));
const r2 = (n: number | null): number | null => (n === null ? null : Math.round(n * 100) / 100);

async function fixture(): Promise<PowerLogSummary> {
  const result = await summarisePowerLog(createReadStream(FIXTURE));
  assert.ok(result.ok);
  return result.summary;
}

function upsOf(yaml: string, site?: string): { site: string; ups: Ups } {
  const chosen = chooseUps(fleetOf(yaml), site);
  assert.ok(chosen.ok && chosen.choice.site !== null, JSON.stringify(chosen));
  return chosen.choice;
}

test('which UPS: --site, else the only site with one, else none (and why)', () => {
  const seed = fleetOf(SEED_FLEET);
  assert.deepEqual(chooseUps(seed, 'fv'), { ok: true, choice: { site: 'fv', ups: { host: '192.0.2.2', port: 3493, name: 'fvups', ratedVA: 1500, ratedW: 900 } } });
  assert.deepEqual(chooseUps(seed), { ok: true, choice: { site: null, why: '2 sites have a UPS (fv, ana): pass --site SITE to compare with one' } });
  assert.deepEqual(chooseUps(seed, 'irv'), { ok: true, choice: { site: null, why: 'site irv has no UPS in the inventory' } });
  assert.deepEqual(chooseUps(seed, 'nope'), { ok: false, error: 'no site "nope" in the inventory (its sites: fv, ana, irv)' });
  assert.equal(upsOf(fvOnly('ratedVA: 1500, ratedW: 900')).site, 'fv');
});

test('seed 002: the four cards’ summed peak against the 1500 VA / 900 W Eaton — over the watt rating', async () => {
  const { site, ups } = upsOf(SEED_FLEET, 'fv');
  const c = compareWithUps(await fixture(), site, ups, 80);
  assert.deepEqual(
    { ...c, peakW: r2(c.peakW), peakPctOfW: r2(c.peakPctOfW), lastWindowPctOfW: r2(c.lastWindowPctOfW), peakPctOfVAAtLeast: r2(c.peakPctOfVAAtLeast) },
    { site: 'fv', ups: 'fvups', ratedW: 900, ratedVA: 1500, peakW: 1191.38, peakPctOfW: 132.38, lastWindowPctOfW: 100.34, peakPctOfVAAtLeast: 79.43, exceedsW: true, overWarnPct: false, warnPct: 80 },
  );
});

test('under the rating, over the warn level, and a UPS with only a VA rating', async () => {
  const s = await fixture();
  const ana = upsOf(SEED_FLEET, 'ana');
  const roomy = compareWithUps(s, ana.site, ana.ups, 80);
  assert.deepEqual([roomy.exceedsW, roomy.overWarnPct, r2(roomy.peakPctOfW)], [false, false, 44.13]);
  const tight = upsOf(fvOnly('ratedVA: 2200, ratedW: 1400'));
  const near = compareWithUps(s, tight.site, tight.ups, 80);
  assert.deepEqual([near.exceedsW, near.overWarnPct, r2(near.peakPctOfW)], [false, true, 85.1]);
  const vaOnly = upsOf(fvOnly('ratedVA: 1500'));
  const va = compareWithUps(s, vaOnly.site, vaOnly.ups, 80);
  assert.deepEqual([va.ratedW, va.peakPctOfW, va.exceedsW, r2(va.peakPctOfVAAtLeast)], [null, null, false, 79.43]);
});

function io(): { out: string[]; err: string[]; io: Parameters<typeof powerlogToTerminal>[2] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env: {} } };
}

test('the terminal: the summed peak as % of the W rating, a WARN line over it, the VA beside it', async () => {
  const t = io();
  const code = await powerlogToTerminal({ verb: 'powerlog', file: FIXTURE, site: 'fv' }, fleetOf(SEED_FLEET), t.io);
  assert.equal(code, 0, t.err.join(''));
  const text = t.out.join('');
  assert.match(text, /^UPS fvups \(site fv\): rated 900 W, 1,500 VA$/m);
  assert.match(text, /^ {2}summed peak 1,191\.4 W at 2026\/09\/13 06:55:14 = 132% of 900 W$/m);
  assert.match(text, /^ {2}last 5 min mean 903\.1 W = 100% of 900 W$/m);
  assert.match(text, /^ {2}WARN the summed peak 1,191\.4 W exceeds the UPS's 900 W rating$/m);
  assert.match(text, /^ {2}the peak is at least 79% of 1,500 VA/m);
  assert.match(text, /^ {2}GPU boards only: the hosts draw more at the wall/m);
  assert.match(text, /^ {2}sum +1,191\.4 +2026\/09\/13 06:55:14 +873\.9 +903\.1 +1,080\.2 +2,400$/m);
  assert.match(text, /^ {2}ends: last sample 2026\/09\/13 06:56:04\.123 \(2 of 4 GPUs: cut mid-sample, left out of the sum\)$/m);
  assert.match(text, /^ {2}then a partial line at 2026\/09\/13 06:56:04\.131, cut mid-line and left out: /m);
  assert.match(text, /every 10 s$/m);

  const under = io();
  assert.equal(await powerlogToTerminal({ verb: 'powerlog', file: FIXTURE, site: 'ana' }, fleetOf(SEED_FLEET), under.io), 0);
  assert.doesNotMatch(under.out.join(''), /WARN/);
  const none = io();
  assert.equal(await powerlogToTerminal({ verb: 'powerlog', file: FIXTURE }, fleetOf(SEED_FLEET), none.io), 0);
  assert.match(none.out.join(''), /^UPS: none to compare with \(2 sites have a UPS \(fv, ana\): pass --site SITE to compare with one\)$/m);
  const only = io();
  assert.equal(await powerlogToTerminal({ verb: 'powerlog', file: FIXTURE }, fleetOf(fvOnly('ratedVA: 1500, ratedW: 900')), only.io), 0);
  assert.match(only.out.join(''), /WARN the summed peak 1,191\.4 W exceeds the UPS's 900 W rating/);
});
