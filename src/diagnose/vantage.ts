// Reports from several vantage points merged into one set of findings, each finding keeping the
// vantage it was measured from (its provenance's `vantage`): summarize() then reads who saw what.
import type { Finding } from '../probes/types.ts';
import { isVantageName, vantageOf } from '../probes/vantage.ts';
import { vantageNames } from './vantage-facts.ts';

/** What mergeVantages takes: a probe report as `seat probe --json` writes it (or as runProbe returns it). */
export interface VantageReport {
  schemaVersion: number;
  site: string;
  fleet: string;
  drill: boolean;
  sites: string[];
  startedAt: string;
  finishedAt: string;
  vantages?: string[];
  findings: Finding[];
}

/** The reports as one: every vantage named. */
export type MergedReport = Omit<VantageReport, 'schemaVersion' | 'vantages'> & { vantages: string[] };

export type MergeError = 'no_reports' | 'fleet_differs' | 'no_vantage' | 'bad_vantage' | 'vantage_twice';
export type MergeResult = { ok: true; report: MergedReport } | { ok: false; code: MergeError; error: string };

/**
 * Reports of the same fleet, one per vantage, as one: every finding kept with its own vantage (its
 * provenance says it), the sites and vantages in the order first seen, the earliest start and the
 * latest finish. Pure; summarize() then reads the vantages from the findings. A finding that names no
 * vantage (a report before schemaVersion 3) is refused: it could be from anywhere.
 */
export function mergeVantages(reports: readonly VantageReport[]): MergeResult {
  const first = reports[0];
  if (!first) return { ok: false, code: 'no_reports', error: 'no report to merge' };
  const vantages: string[] = [];
  const sites: string[] = [];
  const findings: Finding[] = [];
  for (const [i, r] of reports.entries()) {
    if (r.fleet !== first.fleet) return { ok: false, code: 'fleet_differs', error: `report ${i + 1} is of fleet ${JSON.stringify(r.fleet)}, report 1 of ${JSON.stringify(first.fleet)}: merge reports of one fleet` };
    const mine = vantageNames(r.findings);
    if (r.findings.some((f) => vantageOf(f) === null)) {
      return { ok: false, code: 'no_vantage', error: `report ${i + 1} has findings that name no vantage (schemaVersion ${r.schemaVersion}; vantages came with 3): probe again to merge it` };
    }
    for (const v of mine) {
      // Another replica's report is peer input: a vantage is a name, never text for a terminal.
      if (!isVantageName(v)) return { ok: false, code: 'bad_vantage', error: `report ${i + 1} names a vantage that is not a vantage name (${JSON.stringify(v.replace(/\p{Cc}/gu, '').slice(0, 40))})` };
      if (vantages.includes(v)) return { ok: false, code: 'vantage_twice', error: `vantage ${v} is in more than one report: merge one report per vantage` };
    }
    vantages.push(...mine);
    for (const s of r.sites) if (!sites.includes(s)) sites.push(s);
    for (const f of r.findings) findings.push(f);
  }
  const startedAt = reports.map((r) => r.startedAt).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a));
  const finishedAt = reports.map((r) => r.finishedAt).reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
  const site = reports.every((r) => r.site === first.site) ? first.site : 'all';
  return { ok: true, report: { site, fleet: first.fleet, drill: reports.some((r) => r.drill), sites, startedAt, finishedAt, vantages, findings } };
}
