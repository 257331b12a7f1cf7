// The asker's report with the other vantages' answers in it (ask.ts): their findings beside its own,
// each keeping the vantage it was measured from, one summary and one verdict over all of them, and
// what became of every vantage asked (`asked`). An answer that cannot be merged — another fleet,
// other sites planned, findings this seatbelt cannot read — is left out and named, never a reason to
// lose the local findings or another vantage's.
import { sortFindings, type ProbeReport } from '../commands/probe.ts';
import { summarize } from '../diagnose/facts.ts';
import { mergeVantages } from '../diagnose/vantage.ts';
import { decide } from '../diagnose/verdict.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { Finding } from '../probes/types.ts';
import type { AskedVantage } from './types.ts';
import type { AnswerDone } from './wire.ts';

/** One other vantage's answer, read and checked (wire.ts). */
export interface VantageAnswer {
  vantage: string;
  replica: string;
  done: AnswerDone;
  findings: Finding[];
}

export function mergeAnswers(fleet: Fleet, local: ProbeReport, answers: readonly VantageAnswer[], asked: AskedVantage[], durationMs?: number): ProbeReport {
  const outcome = asked.map((a) => ({ ...a }));
  const refuse = (vantage: string, why: string): void => {
    const a = outcome.find((o) => o.vantage === vantage);
    if (a) Object.assign(a, { outcome: 'refused', why, findings: 0 });
  };
  const usable: VantageAnswer[] = [];
  for (const a of answers) {
    if (a.done.fleet !== local.fleet) refuse(a.vantage, `it probes another fleet (${a.done.fleet})`);
    else if (a.done.site !== local.site || !sameSites(a.done.sites, local.sites)) refuse(a.vantage, `its inventory planned other sites (${a.done.sites.join(', ') || 'none'}): its findings are left out`);
    else usable.push(a);
  }
  const base = { ...local, asked: outcome, ...(durationMs !== undefined ? { durationMs: Math.max(durationMs, local.durationMs) } : {}) };
  if (usable.length === 0) return base;
  const m = mergeVantages([local, ...usable.map((a) => ({ schemaVersion: a.done.schemaVersion, site: a.done.site, fleet: a.done.fleet, drill: a.done.drill, sites: a.done.sites, startedAt: a.done.startedAt, finishedAt: a.done.finishedAt, findings: a.findings }))]);
  if (!m.ok) {
    for (const a of usable) refuse(a.vantage, m.error);
    return base;
  }
  try {
    const findings = sortFindings(m.report.findings);
    const summary = summarize(fleet, findings, local.sites);
    return { ...base, startedAt: m.report.startedAt, finishedAt: later(m.report.finishedAt, local.finishedAt), vantages: m.report.vantages, findings, summary, verdict: decide(local.sites, summary) };
  } catch (err) {
    // A finding the schema let through but the diagnosis cannot read: the local report stands.
    for (const a of usable) refuse(a.vantage, `its findings could not be diagnosed (${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)})`);
    return base;
  }
}

function sameSites(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s) => b.includes(s));
}

function later(a: string, b: string): string {
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
