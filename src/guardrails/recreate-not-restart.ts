// Seed 002: labels and addresses attach only at creation: recreate (docker compose up -d <svc>), never restart.
import type { Guardrail } from '../incident/types.ts';
import { acts } from './facts.ts';

const WHY = 'addresses and labels attach only at creation: a restart (or a power-on) keeps the stale ones';
const INSTEAD = 'recreate the container: docker compose up -d <svc> (with sudo where the compose folder is root-owned)';

export const recreateNotRestart: Guardrail<'recreate-not-restart'> = {
  id: 'recreate-not-restart',
  lesson: 'after an address or label change, recreate containers; labels attach only at creation',
  override: true,
  applies: (step, input) => acts(step, input, 'container-change'),
  check({ input, step }) {
    if (input.method === 'recreate') return { ok: true };
    if (input.method === 'restart') {
      return { ok: false, refused: `applying the change of step ${step.id} by restarting the containers`, why: WHY, instead: INSTEAD };
    }
    return {
      ok: false,
      refused: `applying the change of step ${step.id} without saying how: restart or recreate`,
      why: WHY,
      instead: `say which; ${INSTEAD}`,
      waitsFor: 'the method: recreate',
    };
  },
};
