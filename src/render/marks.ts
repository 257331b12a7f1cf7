// Status marks: the same four-letter words in every front end's plain text (terminal, piped,
// the report attached in Slack), so `| grep DOWN` finds the same rows everywhere.
import type { Finding, FindingStatus } from '../probes/types.ts';

/** A row's mark: its status, or `listed` for a paid alias that was only listed, never called. */
export type Mark = FindingStatus | 'listed';

export const MARK_TEXT: Record<Mark, string> = { up: 'ok  ', down: 'DOWN', degraded: 'WARN', unknown: '??  ', listed: 'list' };

/** Up, but only because the gateway lists it: no billable request was sent (no --paid). */
export function isListedOnly(f: Finding): boolean {
  return f.status === 'up' && f.data.kind === 'alias' && !f.data.exercised;
}

export function markOf(f: Finding): Mark {
  return isListedOnly(f) ? 'listed' : f.status;
}

/** What a listed-only row says instead of its probe's detail. */
export const LISTED_TEXT = 'listed, not called (--paid to exercise)';

/** Words for the styles a front end may paint; plain text paints nothing. */
export interface Paint {
  mark(mark: Mark, text: string): string;
  /** The verdict word and section titles. */
  strong(text: string): string;
  /** The DRILL notice. */
  drill(text: string): string;
  /** A GPU bar whose free memory is under the floor. */
  alarm(text: string): string;
}

export const PLAIN: Paint = { mark: (_m, t) => t, strong: (t) => t, drill: (t) => t, alarm: (t) => t };
