// What the gateway's requests measured (litellm.ts), as data: a key's listing, what each alias did per
// key, a seat's own answers. Read by the findings and the attribution; nothing here asks or words.
import type { SeatRef } from '../../inventory/fleet.ts';
import type { HttpOutcome } from '../types.ts';

export interface Key {
  name: string;
  envVar: string;
  secret: string | undefined;
}

export type Listing =
  | { state: 'unset'; key: Key }
  /** `models`: every listed id the inventory knows, and the first MAX_MODELS_KEPT others, in the listing's
   * order; `modelCount`: how many the listing holds in all (models.size when absent). */
  | { state: 'ok'; key: Key; outcome: HttpOutcome; models: Set<string>; modelCount?: number }
  | { state: 'failed'; key: Key; outcome: HttpOutcome };

export interface SeatCheck {
  seat: SeatRef;
  health: HttpOutcome;
  models?: { id: string; maxModelLen: number | null }[];
  modelsOutcome?: HttpOutcome;
}

export type KeyOutcome =
  | { kind: 'unset'; key: Key }
  | { kind: 'listing-failed'; key: Key; outcome: HttpOutcome }
  | { kind: 'not-registered'; key: Key }
  | { kind: 'not-intended'; key: Key }
  | { kind: 'listed-only'; key: Key }
  | { kind: 'ok'; key: Key; outcome: HttpOutcome }
  | { kind: 'failed'; key: Key; outcome: HttpOutcome };
