// What each class of move asks the person for, in order: the terminal's `seat walk` prompts and
// Slack's modal ask the same fields, so a step recorded from either carries the same input.
import type { StepAction, StepInput } from './types.ts';

export const STEP_INPUTS: Partial<Record<StepAction, (keyof StepInput)[]>> = {
  'alias-route': ['alias', 'backend'],
  'seat-move': ['seat', 'host', 'gpu', 'wantMiB'],
  'seat-resize': ['seat', 'host', 'gpu', 'wantMiB'],
  'seat-up': ['seat'],
  'env-edit': ['backup'],
  'container-change': ['method'],
  'power-plan': ['bank', 'loadW'],
  'power-sizing': ['loadW'],
};

/** Fields that are whole numbers. */
export const NUMERIC_INPUTS: ReadonlySet<keyof StepInput> = new Set<keyof StepInput>(['gpu', 'wantMiB', 'loadW']);
