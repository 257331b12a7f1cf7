// A diagnosis as plain text for a terminal or a pipe: problems first, each with the numbers read,
// the line it came from (cleaned), the seed it matches and the options; figures one line each.
import { fmtInt, fmtNum } from '../probes/edge/text.ts';
import { filledMinutes } from './fallbacks.ts';
import { RUNBOOK_FOR } from './lessons.ts';
import type { Diagnosis, FindingGroup, LogFinding, Severity } from './types.ts';

const MARK: Record<Severity, string> = { problem: 'PROBLEM', note: 'note   ', info: 'info   ' };
const MiB = 1024 * 1024;

export interface RenderOptions {
  /** What was read: a path, `stdin`, `the pasted text`, `docker logs of xpu-chat on brutus (30m)`. */
  source: string;
}

export function renderDiagnosis(d: Diagnosis, opts: RenderOptions): string {
  const out: string[] = [headline(d, opts.source)];
  if (d.truncatedLines > 0) out.push(`(${fmtInt(d.truncatedLines)} over-long line${d.truncatedLines === 1 ? '' : 's'} read only in part)`);
  for (const g of d.groups) {
    out.push('');
    out.push(...(g.severity === 'info' ? [figureLine(g)] : groupLines(g)));
  }
  return out.join('\n');
}

function headline(d: Diagnosis, source: string): string {
  const lines = `${fmtInt(d.lines)} line${d.lines === 1 ? '' : 's'} of ${source}`;
  const kinds = (s: Severity): number => d.groups.filter((g) => g.severity === s).length;
  if (d.groups.length === 0) {
    return `seat diagnose: nothing recognised in ${lines} (it knows vLLM's KV-cache and start-up memory errors, allocator OOMs, FlashInfer autotuner fallbacks, KV cache size and concurrency, and the memory profile's advice)`;
  }
  const problems = kinds('problem');
  const notes = kinds('note');
  const parts = [problems > 0 ? `${problems} problem${problems === 1 ? '' : 's'}` : 'no problem', ...(notes > 0 ? [`${notes} note${notes === 1 ? '' : 's'}`] : [])];
  return `seat diagnose: ${parts.join(', ')} in ${lines}`;
}

function groupLines(g: FindingGroup): string[] {
  const f = g.first;
  const where = f.kind === 'flashinfer_oom_fallback' ? `lines ${fmtInt(f.line)}-${fmtInt(f.fields.lastLine)}` : `line ${fmtInt(f.line)}${f.minute ? ` (${f.minute})` : ''}`;
  const times = g.count > 1 ? `, ${fmtInt(g.count)} times${g.last !== f ? ` (last: line ${fmtInt(g.last.line)})` : ''}` : '';
  const out = [`${MARK[g.severity]}  ${f.kind}  ${where}${times}`, `  ${describe(f)}${f.partial ? ' (line cut short: some numbers unread)' : ''}`];
  if (f.kind === 'flashinfer_oom_fallback') out.push(...minuteLines(f));
  if (f.text) out.push(`  | ${f.text}`);
  if (f.lesson) out.push(`  lesson: ${f.lesson}`);
  if (f.options.length > 0) {
    out.push('  options:');
    f.options.forEach((o, i) => out.push(`    ${i + 1}. ${o}`));
  }
  const runbook = RUNBOOK_FOR[f.kind];
  if (runbook) out.push(`  runbook: seat runbook start ${runbook}`);
  return out;
}

function figureLine(g: FindingGroup): string {
  const now = describe(g.last);
  const before = g.count > 1 && describe(g.first) !== now ? ` (was ${describe(g.first)} at line ${fmtInt(g.first.line)})` : '';
  return `${MARK.info}  ${g.kind}  ${now}, line ${fmtInt(g.last.line)}${g.count > 1 ? `, logged ${fmtInt(g.count)} times` : ''}${before}`;
}

// As vLLM prints them: two decimals.
const gib = (n: number | null): string => (n === null ? '? GiB' : `${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} GiB`);
const int = (n: number | null): string => (n === null ? '?' : fmtInt(n));
const mib = (bytes: number | null): string => (bytes === null ? '? MiB' : `${fmtNum(bytes / MiB, 0)} MiB`);
const bytesWithMib = (bytes: number | null): string => (bytes === null ? '? bytes' : `${fmtInt(bytes)} bytes (${mib(bytes)})`);

/** The numbers read, in words. */
export function describe(f: LogFinding): string {
  switch (f.kind) {
    case 'kv_cache_insufficient': {
      const x = f.fields;
      const short = x.shortGiB !== null ? ` (${gib(x.shortGiB)} short)` : '';
      const est = x.estimatedMaxModelLen !== null ? `; vLLM estimates max model len ${int(x.estimatedMaxModelLen)}` : '';
      return `engine init refused: ${gib(x.neededGiB)} of KV cache needed for max seq len ${int(x.maxSeqLen)}, ${gib(x.availableGiB)} available${short}${est}`;
    }
    case 'kv_cache_none':
      return 'engine init refused: no memory left for the KV cache at all';
    case 'startup_free_memory': {
      const x = f.fields;
      return `start refused${x.device ? ` on ${x.device}` : ''}: ${gib(x.freeGiB)} free of ${gib(x.totalGiB)}, utilization ${x.utilization ?? '?'} wants ${gib(x.requestedGiB)}`;
    }
    case 'allocator_oom': {
      const x = f.fields;
      const dev = x.device !== null ? ` on device ${x.device}` : '';
      const total = x.totalBytes !== null ? ` of ${gib(Math.round((x.totalBytes / 1024 ** 3) * 100) / 100)}` : '';
      return `allocation failed${dev}: ${bytesWithMib(x.wantBytes)} wanted, ${bytesWithMib(x.freeBytes)} free${total} (${x.source === 'vllm' ? 'vLLM allocator' : 'PyTorch'})`;
    }
    case 'flashinfer_oom_fallback': {
      const x = f.fields;
      if (x.spanMinutes === null) return `${fmtInt(x.total)} FlashInfer autotuner OOM-fallbacks (no timestamps in the log: a total only)`;
      const worst = x.worstMinute ? `, worst minute ${x.worstMinute.minute} with ${fmtInt(x.worstMinute.count)}` : '';
      const untimed = x.untimed > 0 ? ` (+${fmtInt(x.untimed)} before the first timestamp)` : '';
      return `${fmtInt(x.total)} FlashInfer autotuner OOM-fallbacks in ${fmtInt(x.spanMinutes)} minute${x.spanMinutes === 1 ? '' : 's'} (${x.firstMinute}-${x.lastMinute?.slice(6)}), ${fmtNum(x.perMinuteAverage ?? 0, 1)} a minute${worst}${untimed}`;
    }
    case 'engine_init_failed':
      return 'engine core initialization failed';
    case 'profile_suggestion': {
      const x = f.fields;
      const full = x.fullGiB !== null ? `${gib(x.fullGiB)}${x.fullBytes !== null ? ` (--kv-cache-memory=${x.fullBytes})` : ''} "to fully utilize gpu memory"` : '';
      const fit = x.fitGiB !== null ? `${gib(x.fitGiB)} to fit the requested utilization` : '';
      const cur = x.currentGiB !== null ? `; ${gib(x.currentGiB)} in use now` : '';
      return `vLLM suggests a KV budget of ${[fit, full].filter(Boolean).join(', or ')}${cur}`;
    }
    case 'profiling_skipped':
      return `KV budget pinned${f.fields.reservedGiB !== null ? ` at ${gib(f.fields.reservedGiB)}` : ''}: memory profiling skipped, --gpu-memory-utilization ignored`;
    case 'kv_cache_memory':
      return `${gib(f.fields.availableGiB)} available for the KV cache`;
    case 'kv_cache_size':
      return `${fmtInt(f.fields.tokens)} tokens`;
    case 'max_concurrency':
      return `${fmtNum(f.fields.concurrency, 2)}x at ${fmtInt(f.fields.tokensPerRequest)} tokens per request`;
  }
}

function minuteLines(f: Extract<LogFinding, { kind: 'flashinfer_oom_fallback' }>): string[] {
  const per = f.fields.perMinute;
  if (per.length === 0) return [];
  const filled = filledMinutes(per, 30);
  const shown = filled ?? [...per].sort((a, b) => b.count - a.count).slice(0, 10);
  const label = filled ? 'per minute' : 'busiest minutes';
  return [`  ${label}: ${shown.map((m) => `${m.minute} ${m.count}`).join(' · ')}`];
}
