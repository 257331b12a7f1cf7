// /metrics' exposition of the last probe of each site: the figures fed, under inventory names only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSeatMetrics } from '../../src/ops/metrics.ts';
import { cleanLabel } from '../../src/ops/labels.ts';
import { drillFleet, fvFindings, HOSTILE, KEY_VALUE, reportOf } from './fixture.ts';

const fleet = await drillFleet();

function lines(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

test('fv’s aliases fail for the admin key: probe_success 0 per alias and key, with the request’s duration', async () => {
  const m = createSeatMetrics(fleet);
  m.record(reportOf('fv', fvFindings()));
  const text = await m.text();
  const success = lines(text, 'probe_success');
  assert.ok(success.includes('probe_success{site="fv",target="gen",kind="alias",key="admin"} 0'), text);
  assert.ok(success.includes('probe_success{site="fv",target="coder",kind="alias",key="admin"} 0'), text);
  assert.ok(lines(text, 'probe_duration_seconds').includes('probe_duration_seconds{site="fv",target="gen",kind="alias",key="admin"} 1.5'), text);
  assert.ok(success.includes('probe_success{site="fv",target="gateway",kind="gateway",key="admin"} 1'), text);
  assert.ok(success.includes('probe_success{site="fv",target="fvups",kind="ups",key=""} 0'), text);
});

test('GPU free bytes, a seat’s budget, the UPS’s load ratio and battery, and when the probe ran', async () => {
  const m = createSeatMetrics(fleet);
  m.record(reportOf('fv', fvFindings()));
  const text = await m.text();
  assert.deepEqual(lines(text, 'seat_gpu_free_bytes'), [`seat_gpu_free_bytes{host="fv-ml1",gpu="2"} ${1979 * 1024 * 1024}`]);
  assert.deepEqual(lines(text, 'seat_seat_budget_bytes'), [`seat_seat_budget_bytes{seat="flash-next",host="fv-ml1",gpu="2"} ${14336 * 1024 * 1024}`]);
  assert.deepEqual(lines(text, 'seat_ups_load_ratio'), ['seat_ups_load_ratio{site="fv",ups="fvups"} 0.93']);
  assert.deepEqual(lines(text, 'seat_ups_on_battery'), ['seat_ups_on_battery{site="fv",ups="fvups"} 1']);
  assert.deepEqual(lines(text, 'seat_probe_timestamp_seconds'), [`seat_probe_timestamp_seconds{site="fv"} ${Date.parse('2026-12-07T04:00:01.500Z') / 1000}`]);
});

test('what was not measured is absent, never 0: an unset key, a GPU whose tool is missing, no journal', async () => {
  const m = createSeatMetrics(fleet);
  m.record(reportOf('fv', fvFindings()));
  const text = await m.text();
  assert.ok(!text.includes('key="shared"'), 'the unset shared key gives no sample');
  assert.ok(!text.includes('gpu="3"') && !text.includes('gpu3'), 'GPU 3 (nvidia-smi missing) gives no sample');
  assert.deepEqual(lines(text, 'seat_open_incidents'), []);
  assert.deepEqual(lines(text, 'seat_decisions_total'), []);
  const withJournal = createSeatMetrics(fleet, () => ({ openIncidents: 2, decisions: 7 }));
  const t2 = await withJournal.text();
  assert.deepEqual(lines(t2, 'seat_open_incidents'), ['seat_open_incidents 2']);
  assert.deepEqual(lines(t2, 'seat_decisions_total'), ['seat_decisions_total 7']);
});

test('no label carries a key’s value, its variable, or a hostile peer’s string', async () => {
  const m = createSeatMetrics(fleet);
  m.record(reportOf('fv', fvFindings()));
  const text = await m.text();
  assert.ok(!text.includes(KEY_VALUE), 'no key value');
  assert.ok(!text.includes('LITELLM_ADMIN_KEY'), 'no key variable');
  assert.ok(!text.includes('evil') && !text.includes('forged'), 'no peer string');
  // Every sample line is name{label="inventory-alphabet",...} value: nothing a peer could inject.
  for (const l of text.split('\n')) {
    if (l === '' || l.startsWith('# ')) continue;
    assert.match(l, /^[a-z_]+(\{([a-z]+="[A-Za-z0-9_.:@/-]*",?)*\})? [-0-9.e+NaInf]+$/, l);
  }
  assert.equal(cleanLabel(HOSTILE).length <= 64 && /^[A-Za-z0-9_.:@/-]*$/.test(cleanLabel(HOSTILE)), true);
});

test('a site not in the inventory is not kept; a later probe of a site replaces its figures', async () => {
  const m = createSeatMetrics(fleet);
  m.record(reportOf(HOSTILE, fvFindings()));
  assert.deepEqual(lines(await m.text(), 'probe_success'), []);
  m.record(reportOf('fv', fvFindings()));
  const up = fvFindings().filter((f) => f.probe === 'gateway');
  m.record(reportOf('fv', up, '2026-12-07T04:05:00.000Z'));
  const text = await m.text();
  assert.deepEqual(lines(text, 'probe_success'), ['probe_success{site="fv",target="gateway",kind="gateway",key="admin"} 1']);
  assert.deepEqual(lines(text, 'seat_gpu_free_bytes'), []);
});
