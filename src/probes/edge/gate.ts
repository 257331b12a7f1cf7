// When a probe run may start its programs (ping, ssh, a local nvidia-smi or docker): once the gateway's key listings are in hand,
// or after LISTINGS_FIRST_MS, whichever comes first.
//
// Why: starting a program forks this process, and a fork holds the thread for milliseconds (about
// 6 ms each at 3,000 aliases on a 2-core VM, where the heap is large). Every alias request waits on
// its key's listing; five forks taken while the listing's answer sat unread held it, and with it the
// first alias request, 30–40 ms past its arrival. After the listings, the forks fall in the first
// wave's wait instead. A program loses at most LISTINGS_FIRST_MS of its own timeout (its budget
// runs from its task's start), and none when the gateway answers sooner, as it does when it is up.
import { realTimer, type SetTimer } from './timeout.ts';

/** The longest a program waits for the listings: a gateway that is slow or down does not hold ping. */
export const LISTINGS_FIRST_MS = 100;

export interface ProgramGate {
  /** Settles when open() is called or the cap has passed. */
  readonly opened: Promise<void>;
  /** Idempotent; also cancels the cap's timer, so a finished run leaves nothing pending. */
  open(): void;
}

export function createProgramGate(capMs: number, setTimer: SetTimer = realTimer): ProgramGate {
  let release!: () => void;
  const opened = new Promise<void>((r) => (release = r));
  let cancel: () => void = () => {};
  const open = (): void => {
    cancel();
    release();
  };
  cancel = setTimer(open, capMs);
  return { opened, open };
}

/**
 * A gate that opens once every key in `keys` has reported its listing settled, a turn of the loop
 * after the last (what the listing set going, the first alias requests, leaves first).
 */
export function openWhenAllSettled(gate: ProgramGate | undefined, keys: readonly string[]): (key: string) => void {
  if (!gate) return () => {};
  if (keys.length === 0) {
    gate.open();
    return () => {};
  }
  const settled = new Set<string>();
  return (key) => {
    settled.add(key);
    if (settled.size === keys.length) setImmediate(gate.open);
  };
}
