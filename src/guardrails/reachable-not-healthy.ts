// Seed 002: a seat ran "Up (healthy)" with PORTS=[]: it is up when its published port answers from outside, not when its healthcheck passes.
import type { Guardrail } from '../incident/types.ts';
import type { Finding } from '../probes/types.ts';
import { acts, isoSecond, latest } from './facts.ts';

const WHY = 'healthy is not reachable: a container healthcheck runs inside against localhost and passes with no published port; a seat is up when its port answers from outside';

export const reachableNotHealthy: Guardrail<'reachable-not-healthy'> = {
  id: 'reachable-not-healthy',
  lesson: 'a seat is up only when its published port answers from outside, not when its container healthcheck passes',
  override: true,
  applies: (step, input) => acts(step, input, 'seat-up'),
  check({ input, fleet, findings, incident }) {
    const seat = input.seat;
    if (!seat) {
      return {
        ok: false,
        refused: 'declaring a seat up without naming it',
        why: WHY,
        instead: 'name the seat, then probe it from outside',
        waitsFor: 'the seat',
      };
    }
    const opened = Date.parse(incident.openedAt);
    const routed = new Set([...fleet.aliases.values()].filter((a) => a.alias.seats.includes(seat)).map((a) => a.name));
    const direct = (f: Finding): boolean => f.subject.kind === 'seat' && f.subject.name === seat && f.data.kind === 'seat';
    const viaAlias = (f: Finding): boolean => f.subject.kind === 'alias' && routed.has(f.subject.name) && f.data.kind === 'alias' && f.data.exercised;
    // Measured (not inferred) after the incident opened: an answer from before says nothing of now.
    const relevant = findings.filter((f) => f.provenance.kind === 'measured' && Date.parse(f.observedAt) >= opened && (direct(f) || viaAlias(f)));
    const answered = relevant.filter((f) => f.status === 'up');
    const lastUp = latest(answered);
    const failedLater = relevant.filter((f) => direct(f) && f.status !== 'up' && Date.parse(f.observedAt) > lastUp);
    if (answered.length > 0 && failedLater.length === 0) return { ok: true };
    const through = routed.size > 0 ? ` or through ${[...routed].join(', ')}` : '';
    return {
      ok: false,
      refused:
        answered.length > 0
          ? `declaring seat ${seat} up: it answered at ${isoSecond(lastUp)} but its port failed from outside at ${isoSecond(latest(failedLater))}`
          : `declaring seat ${seat} up: no probe since the incident opened (${incident.openedAt}) reached it from outside${through}`,
      why: WHY,
      instead: `probe the site so ${seat}'s published port is measured from outside (its /health and /v1/models${through}); where it does not answer, check \`docker port\` on its container, not the healthcheck`,
      waitsFor: `a probe that reaches ${seat} from outside${through}`,
    };
  },
};
