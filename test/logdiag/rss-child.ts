// Run by memory.test.ts in a process of its own: streams one log file through `seat diagnose`'s
// core and reports its figures and the process's resident memory before and during the read.
import { createReadStream } from 'node:fs';
import { diagnoseStream } from '../../src/logdiag/diagnose.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: rss-child.ts FILE');
globalThis.gc?.();
const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
const d = await diagnoseStream(createReadStream(file, { highWaterMark: 256 * 1024 }));
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
const fb = d.groups.find((g) => g.kind === 'flashinfer_oom_fallback')?.first;
process.stdout.write(
  `${JSON.stringify({
    baseline,
    peak,
    maxRss: process.resourceUsage().maxRSS * 1024,
    lines: d.lines,
    problems: d.problems,
    kinds: d.groups.map((g) => [g.kind, g.count]),
    fallbacks: fb?.kind === 'flashinfer_oom_fallback' ? { total: fb.fields.total, minutes: fb.fields.perMinute.length, worst: fb.fields.worstMinute } : null,
  })}\n`,
);
