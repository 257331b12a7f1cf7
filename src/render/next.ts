// "What to run next": the proposed runbook, or probe again, or nothing. Decided from the verdict's
// facts (its status and runbook id), never from its words.
import type { ProbeReport, ProbeRequest } from '../commands/probe.ts';
import { runbookWhy, type ProposedRunbook } from '../diagnose/runbooks.ts';
import { PROBE_GROUPS } from '../probes/types.ts';

/** `site`: the one site the proposal is about, when it names one; `logsOf`: seats whose log to read with it. */
export type NextStep = { kind: 'runbook'; runbook: ProposedRunbook; why: string; site: string | null; logsOf: string[] } | { kind: 'reprobe' } | { kind: 'nothing' };

export function nextStep(report: ProbeReport): NextStep {
  const id = report.verdict.runbook;
  const p = report.verdict.proposal;
  if (id) return { kind: 'runbook', runbook: id, why: runbookWhy(id), site: p?.sites.length === 1 ? p.sites[0]! : null, logsOf: p?.logsOf ?? [] };
  return report.verdict.status === 'ok' ? { kind: 'nothing' } : { kind: 'reprobe' };
}

/** The scope of a probe as flags, so a suggested command asks for the same thing again. */
export type ProbeScope = Partial<Pick<ProbeRequest, 'only' | 'paid' | 'timeoutMs'>>;

/** `seat probe fv --only gpus --paid`, plus `extra` flags. */
export function probeCommand(program: string, site: string, scope: ProbeScope = {}, extra: string[] = []): string {
  const words = [program, 'probe', site];
  if (scope.only && scope.only.length > 0 && scope.only.length < PROBE_GROUPS.length) words.push('--only', scope.only.join(','));
  if (scope.timeoutMs != null) words.push('--timeout', String(scope.timeoutMs));
  if (scope.paid) words.push('--paid');
  return [...words, ...extra].join(' ');
}

/** Why an `elsewhere:` runbook is only the gateway's view, and the probe that looks at the site itself (`probe`, already escaped for where it is shown). */
export function gatewayViewNote(probe: string): string {
  return `as the gateway sees it: its own hosts were not probed here, \`${probe}\` says whether the site is up`;
}

/** `seat runbook start site-dark --site fv`: the exact command that starts the proposed runbook. */
export function startCommand(program: string, runbook: string, site: string): string {
  return [program, 'runbook', 'start', runbook, ...(site === 'all' ? [] : ['--site', site])].join(' ');
}

/** The step in words, with `again` as the way to probe again and `start` as the way to start a runbook. */
export function nextText(step: NextStep, again: string, start?: string): string {
  switch (step.kind) {
    case 'runbook': {
      const logs = step.logsOf.length > 0 ? `; its log: ${step.logsOf.map((s) => `${start ? start.split(' ')[0] : 'seat'} diagnose --seat ${s}`).join(', ')}` : '';
      return `${start ? start : `start runbook ${step.runbook}`} — ${step.why}${logs}`;
    }
    case 'reprobe':
      return `no runbook fits: deal with the rows not up, then probe again (${again})`;
    case 'nothing':
      return 'nothing: every check is up';
  }
}
