// Where an override request stands, read from the incident's view and the clock: both front ends
// show it and the service decides on it (an approval of a closed request is refused; asking again
// while an approval stands is refused). A request closes when its step is decided, when it
// expires, or when the incident closes.
import type { IncidentView, OverrideRequest } from './engine.ts';
import type { Actor } from './types.ts';

export type OverrideState =
  | { state: 'waiting' }
  /** Approved and standing: anyone on call but the approver may press Done until it expires. */
  | { state: 'approved'; by: Actor; at: string; until: string }
  | { state: 'refused'; by: Actor; why: string }
  | { state: 'closed'; why: 'step-decided' | 'expired' | 'incident-closed'; by?: Actor; at?: string };

export function overrideState(view: IncidentView, req: OverrideRequest, now: Date): OverrideState {
  if (req.refused) return { state: 'refused', by: req.refused.by, why: req.refused.why };
  const step = view.steps.find((s) => s.spec.id === req.step);
  if (step && (step.state.state === 'done' || step.state.state === 'skipped')) {
    return { state: 'closed', why: 'step-decided', by: step.state.by, at: step.state.at };
  }
  if (view.incident.status === 'closed') return { state: 'closed', why: 'incident-closed', ...(view.incident.closedBy ? { by: view.incident.closedBy } : {}), ...(view.incident.closedAt ? { at: view.incident.closedAt } : {}) };
  if (now.getTime() > Date.parse(req.expiresAt)) return { state: 'closed', why: 'expired', at: req.expiresAt };
  if (req.approved) return { state: 'approved', by: req.approved.by, at: req.approved.at, until: req.expiresAt };
  return { state: 'waiting' };
}

/** The approval standing on a step now (the newest), if any. */
export function standingApproval(view: IncidentView, step: string, now: Date): { req: OverrideRequest; by: Actor; until: string } | undefined {
  for (const req of [...view.overrides].reverse()) {
    if (req.step !== step) continue;
    const s = overrideState(view, req, now);
    if (s.state === 'approved') return { req, by: s.by, until: s.until };
  }
  return undefined;
}

/** Requests on a step that still wait for a second person. */
export function waitingRequests(view: IncidentView, step: string, now: Date): OverrideRequest[] {
  return view.overrides.filter((r) => r.step === step && overrideState(view, r, now).state === 'waiting');
}
