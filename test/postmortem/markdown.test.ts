// The postmortem of a scripted site-dark incident, as Markdown, compared byte for byte with the
// golden file. SEAT_UPDATE_GOLDEN=1 rewrites the golden (then read the diff before committing it).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderPostmortem } from '../../src/postmortem/index.ts';
import type { IncidentView } from '../../src/incident/engine.ts';
import { EXPORTED_AT, scriptSiteDark, type Scripted } from './incident.ts';
import { section } from './read.ts';

const GOLDEN = fileURLToPath(new URL('../fixtures/postmortem/site-dark.md', import.meta.url));
let s: Scripted;
let view: IncidentView;
let head: string;
let md: string;
/** The seq of the first event of `kind` that `match` accepts: the tests name events, not numbers. */
const seqOf = (kind: string, match: (p: Record<string, unknown>, step?: string) => boolean = () => true): number => {
  const e = view.events.find((x) => x.kind === kind && match(x.payload, x.step));
  assert.ok(e, `no ${kind} event`);
  return e.seq;
};

before(async () => {
  s = await scriptSiteDark();
  view = (await s.service.view(s.id))!;
  const verified = await s.store.verify(s.id);
  assert.ok(verified.ok, 'the scripted journal verifies');
  head = verified.heads.get(s.id)!;
  md = renderPostmortem(view, { format: 'md', head, now: EXPORTED_AT, fleet: s.fleet });
});
after(async () => {
  await s?.close();
});

test('the Markdown postmortem of the scripted incident is the golden file, byte for byte', async () => {
  if (process.env.SEAT_UPDATE_GOLDEN === '1') await writeFile(GOLDEN, md);
  const golden = await readFile(GOLDEN, 'utf8');
  assert.equal(md, golden, 'the export changed: run with SEAT_UPDATE_GOLDEN=1 and read the diff of test/fixtures/postmortem/site-dark.md');
});

test('the same journal and clock give the same bytes', async () => {
  const again = await scriptSiteDark();
  try {
    const v = await again.store.verify(again.id);
    assert.ok(v.ok);
    assert.equal(v.heads.get(again.id), head, 'a scripted journal on a fixed clock has one head hash');
    assert.equal(renderPostmortem((await again.service.view(again.id))!, { format: 'md', head, now: EXPORTED_AT, fleet: again.fleet }), md);
  } finally {
    await again.close();
  }
});

test('the head hash in the document is the one verify() gives for the incident', () => {
  assert.match(head, /^[0-9a-f]{64}$/);
  assert.ok(md.includes(`| **Journal head** | \`${head}\``), 'in the header table');
  assert.ok(md.includes(`\n    ${head}\n`), 'in the Journal section, on a line of its own');
  assert.ok(md.includes(`(\`${head.slice(0, 12)}\`)`), 'as seat journal verify prints it');
});

test('phase markers: impact from the first report not ok, mitigated at the first ok report after it, resolved at the close', () => {
  const row = (name: string): string => md.split('\n').find((l) => l.startsWith(`| **${name}** |`)) ?? '';
  const reports = view.events.filter((e) => e.kind === 'probe.report').map((e) => e.seq);
  assert.ok(row('IMPACT BEGINS').endsWith(`| 2026-12-03 07:01:20 | T−0:00:40 | first probe report not ok (#${reports[0]}) |`));
  assert.match(row('DECLARED'), /07:02:00 \| T\+0:00:00 \| incident opened \(#1\) by ana/);
  assert.ok(row('MITIGATED').endsWith(`| 2026-12-03 08:05:00 | T+1:03:00 | first probe report ok after the impact began (#${reports.at(-1)}) |`));
  assert.ok(row('RESOLVED').endsWith(`| 2026-12-03 08:10:00 | T+1:08:00 | incident closed (#${seqOf('incident.closed')}) by bob |`));
  assert.match(md, /\| Time to detect \(impact begins → declared\) \| 40 s \|/);
  assert.match(md, /\| Time to mitigate \(impact begins → mitigated\) \| 1 h 3 min \|/);
  assert.match(md, /\| Time to resolve \(impact begins → resolved\) \| 1 h 8 min \|/);
});

test('every event is on the timeline, in UTC with its T+ offset, who, and how it is known', () => {
  const timeline = section(md, 'Timeline');
  for (const e of view.events) assert.ok(timeline.includes(`| #${e.seq} |`), `event #${e.seq} is on the timeline`);
  assert.match(timeline, /\| #2 \| 2026-12-03 07:01:20 \| T−0:00:40 \| seatbelt \(probe\) \| Probe report: \*\*down\*\* — site fv dark.* \| measured \|/);
  assert.match(timeline, new RegExp(`\\| #${seqOf('step.done', (_p, step) => step === 'recover-power-log')} \\| .* \\| ana \\| Step \`recover-power-log\` done`));
  assert.match(timeline, /\| #\d+ \| .* \| ana \| Step `recover-power-log` done — evidence: file .*measured: read and hashed by seatbelt.* \| measured \|/);
  assert.match(timeline, /\| #\d+ \| .* \| ana \| Evidence for step `no-polling`: Has a person at the site reset or replaced the UPS\? \*\*yes\*\* \| declared \|/);
  assert.match(timeline, /\| #\d+ \| .* \| bob \| Step `power-plan` refused by guardrail `no-surge-outlets`: .* \| inferred \|/);
});

test('the correction strikes through what it amends, beside it, and in its own section', () => {
  const note = seqOf('note', (p) => String(p.text).includes('failed to'));
  const fix = seqOf('correction');
  assert.ok(md.includes(`| #${note} | 2026-12-03 07:06:00 | T+0:04:00 | bob | ~~Note: Bob failed to notice the UPS alarm yesterday~~ → corrected at #${fix} by bob: The UPS alarm went to a mailbox nobody reads |`));
  assert.ok(section(md, 'Corrections').includes(`- #${fix} by bob at 2026-12-03 07:07:00 UTC: ~~Note: Bob failed to notice the UPS alarm yesterday~~ (#${note}, bob, 2026-12-03 07:06:00 UTC) → The UPS alarm went to a mailbox nobody reads`));
});

test('refusals, the override with both people, the skipped step as an action item, the blameless flags', () => {
  const refusals = section(md, 'Guardrail refusals');
  assert.equal(refusals.split('\n').filter((l) => /^\| #\d+ /.test(l)).length, 3);
  const req = seqOf('override.requested');
  const approval = seqOf('override.approved');
  const done = seqOf('step.done', (p) => p.override === approval);
  assert.ok(section(md, 'Overrides').includes(`| #${req} | \`recreate-not-restart\` | \`recreate-containers\` | method restart | ana at 2026-12-03 07:51:00 | compose file lost with the host; labels unchanged since creation | bob at 2026-12-03 07:52:00 (#${approval}) | 2026-12-03 08:06:00 | used: step done at #${done} by ana |`));
  const skip = seqOf('step.skipped');
  assert.match(section(md, 'Action items'), new RegExp(`\\| \\*to write\\* \\| Step \`paid-coverage\` .* was skipped by ana .* \\| \\*to write\\* \\| \\*to write\\* \\| \\*to write\\* \\| #${skip} \\|`));
  const flags = section(md, 'Blameless language check');
  assert.ok(flags.includes(`| #${seqOf('note', (p) => String(p.text).includes('failed to'))} | bob | note | “failed to” |`));
  assert.ok(flags.includes(`| #${skip} | ana | reason | “should have” |`));
});

test('what people must write is a marked placeholder, never invented', () => {
  for (const name of ['Summary', 'Impact', 'Contributing factors']) assert.match(section(md, name), /^> \*\*TO WRITE\*\* — /m, name);
  for (const name of ['What went well', 'What went wrong', 'Where we got lucky']) assert.match(md, new RegExp(`### ${name}\\n\\n> \\*\\*TO WRITE\\*\\* — `), name);
});

test('the runbook and its pinned sha256, the verdict of the latest report', () => {
  assert.ok(md.includes(`\`site-dark\` — Site dark (\`runbooks/site-dark.md\`), pinned at #3 by ana. The incident followed the text as pinned, whose sha256 is \`${view.pin!.sha256}\``));
  const last = view.events.filter((e) => e.kind === 'probe.report').at(-1)!.seq;
  assert.match(section(md, 'Verdict'), new RegExp(`From the latest probe report \\(#${last}, 2026-12-03 08:05:00 UTC, T\\+1:03:00, measured\\): \\*\\*ok\\*\\* — all \\d+ checks up`));
});

test('probe snapshots: aliases down by host, GPU memory declared vs measured, the UPS, BMC and firewall', () => {
  const snaps = section(md, 'Probe snapshots');
  assert.match(snaps, /\| fv-ml1 \| 19 of 19 \| classifier, coder, /);
  assert.match(snaps, /\| fv-ml1 GPU2 \| `flash-next` \| 14,336 KV \+ weights \| 95,000 \| 95,512 \| 2,375 \| 97,887 \| 4,096 \| -1,721 \| \*\*degraded\*\* \(under\\_floor\) \| measured \|/);
  assert.match(snaps, /\| fvups \| up \| OL CHRG \| 68 % \| 612 W \(metered\) \| 900 W \| 41 % \| 540 s \| measured \|/);
  assert.match(snaps, /\| fv-ml1-bmc \| bmc \| \*\*down\*\* \(no\\_icmp\\_reply\) \| failed \|/);
});

test('a drill incident says DRILL at the top', async () => {
  const id = (await s.service.open({ site: 'ana', title: 'Tuesday drill', actor: { kind: 'local', name: 'ana' }, drill: true }) as { incident: { id: number } }).incident.id;
  const v = await s.store.verify(id);
  assert.ok(v.ok);
  const out = renderPostmortem((await s.service.view(id))!, { format: 'md', head: v.heads.get(id)!, now: EXPORTED_AT });
  const lines = out.split('\n');
  assert.equal(lines[0], '# DRILL — Postmortem: Tuesday drill');
  assert.match(lines[2] ?? '', /^> \*\*DRILL\*\* — /);
  assert.match(out, /\| \*\*MITIGATED\*\* \| +\| +\| no probe report came back ok/);
});

test('an incident declared before any probe measured its impact: time to detect is not measured, never a negative time', () => {
  // Opened by hand at 07:00, the first report not ok at 07:01:20: when the impact began is unknown.
  const early: IncidentView = { ...view, incident: { ...view.incident, openedAt: '2026-12-03T07:00:00.000Z' } };
  const out = renderPostmortem(early, { format: 'md', head, now: EXPORTED_AT, fleet: s.fleet });
  const row = out.split('\n').find((l) => l.startsWith('| Time to detect')) ?? '';
  assert.match(row, /\| not measured \(declared before any probe measured the impact\) \|$/);
  assert.doesNotMatch(out, /Time to detect[^\n]*−/);
});
