// The terminal's last probe of each site, kept beside the journal, so that `seat runbook start` after
// `seat probe fv` journals the probe that found the impact as the incident's first finding — as Start
// runbook does in Slack. Without it the postmortem's "time to detect" has no start to count from.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ProbeReport } from '../commands/probe.ts';
import { canonicalJson } from '../probes/canonical.ts';

/** A report older than this did not lead to the runbook being started now. */
export const DETECTED_WITHIN_MS = 60 * 60 * 1000;
/** Our own file, but a file on disk: never read without a bound. */
const MAX_BYTES = 64 * 1024 * 1024;

/** Where a site's last report is kept: beside the journal, one file per site. */
export function lastProbePath(journal: string, site: string): string {
  return `${journal}.probe-${site.replace(/[^A-Za-z0-9_-]/g, '_')}.json`;
}

/** Keeps the report when the journal's folder exists (a probe creates no folder); a reason when it could not. */
export function saveLastProbe(journal: string, report: ProbeReport): string | null {
  if (!existsSync(dirname(journal))) return null;
  const path = lastProbePath(journal, report.site);
  try {
    writeFileSync(`${path}.tmp`, canonicalJson(report), { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
    return null;
  } catch (err) {
    return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
  }
}

/**
 * The kept report that led to `runbook` at `site`: its own site, proposing that runbook, finished at
 * most DETECTED_WITHIN_MS before `now` and not after it. Anything else (no file, unreadable, another
 * runbook, stale) is no report: the incident then begins when it was opened.
 */
export function detectingReport(journal: string, site: string, runbook: string, now: Date): ProbeReport | null {
  const path = lastProbePath(journal, site);
  try {
    if (!existsSync(path) || statSync(path).size > MAX_BYTES) return null;
    const r = JSON.parse(readFileSync(path, 'utf8')) as Partial<ProbeReport> | null;
    if (!r || typeof r !== 'object' || r.site !== site || typeof r.finishedAt !== 'string' || !Array.isArray(r.findings)) return null;
    if (r.verdict?.runbook !== runbook) return null;
    const at = Date.parse(r.finishedAt);
    if (Number.isNaN(at) || at > now.getTime() || now.getTime() - at > DETECTED_WITHIN_MS) return null;
    return r as ProbeReport;
  } catch {
    return null;
  }
}
