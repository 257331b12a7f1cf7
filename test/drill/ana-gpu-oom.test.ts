// Seed 000 as a drill, driven through piped stdin the way the console takes it: ana's probe proposes
// gpu-oom-cotenant, GPU1 is at 216 MiB free with six tenants, GPU0 holds mog-sec at 55,126 MiB, and
// vllm-embed's RestartCount is 7; the runbook starts and its first step is recorded with that count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MAIN, pathAfter, Session } from './session.ts';

const PROMPT = /seat drill ana-gpu-oom> $/;

interface Gpu { host: string; index: number; freeMiB: number; processes: { name: string; usedMiB: number }[]; seats: { seat: string; measuredMiB: number | null }[] }
interface Container { host: string; container: string; restartCount: number | null }

test('ana-gpu-oom through the console: probe ana proposes gpu-oom-cotenant on the seed’s figures', { timeout: 180_000 }, async () => {
  const s = new Session([MAIN, 'drill', 'ana-gpu-oom'], { pty: false });
  try {
    const intro = await s.waitFor(PROMPT);
    assert.match(intro, /type first:\n\s+probe ana\s.*\n\s+runbook start gpu-oom-cotenant\s/);
    const inspect = JSON.parse(readFileSync(pathAfter(intro, 'docker inspect'), 'utf8')) as { RestartCount: number }[];
    assert.equal(inspect[0]?.RestartCount, 7);

    s.type('probe ana');
    const report = await s.waitFor(PROMPT);
    assert.match(report, /ana-ml2 GPU1: 216 MiB free, under the 4,096 MiB floor/);
    assert.match(report, /DOWN alias\s+qwen3-embed\s+HTTP 500 through the gateway/);
    assert.match(report, /next:\s+seat runbook start gpu-oom-cotenant --site ana/);

    s.type('probe ana --only gpus --json');
    const json = /^\{\n[\s\S]*?^\}$/m.exec(await s.waitFor(PROMPT));
    assert.ok(json, 'one JSON report');
    const findings = (JSON.parse(json[0]) as { findings: { data: { kind: string; gpu?: Gpu; container?: Container } }[] }).findings;
    const gpus = findings.flatMap((f) => (f.data.kind === 'gpu' && f.data.gpu ? [f.data.gpu] : []));
    const gpu1 = gpus.find((g) => g.host === 'ana-ml2' && g.index === 1);
    const gpu0 = gpus.find((g) => g.host === 'ana-ml2' && g.index === 0);
    assert.equal(gpu1?.freeMiB, 216);
    assert.equal(gpu1?.processes.length, 6, 'six tenants on GPU1');
    assert.deepEqual(gpu0?.seats.map((x) => [x.seat, x.measuredMiB]), [['mog-sec', 55126]]);
    // The container probe, where the tree has it, reads the same count from the docker stand-in.
    const embed = findings.flatMap((f) => (f.data.kind === 'container' && f.data.container?.container === 'vllm-embed' ? [f.data.container] : []))[0];
    if (embed) assert.equal(embed.restartCount, 7);

    s.type('runbook start gpu-oom-cotenant');
    const pinned = await s.waitFor(PROMPT);
    assert.match(pinned, /opened #1 \[open\] DRILL ana/);
    assert.match(pinned, /step:\s+restart-count/);
    s.type('step done restart-count --value 7');
    assert.match(await s.waitFor(PROMPT), /recorded: restart-count done by drill-person/);
    s.type('journal verify');
    assert.match(await s.waitFor(PROMPT), /journal holds: \d+ events in 1 incident/);
    s.end(); // Ctrl-D: the end of input ends the console
    assert.equal(await s.exited, 0, s.out.slice(-3000));
    assert.match(s.out, /drill ana-gpu-oom over: its stand-ins are stopped/);
  } finally {
    s.dump();
    await s.close();
  }
});
