// The runbooks a diagnosis can propose, by id, and the ones a person starts by name (the boot race
// is read from logs, which the probe does not see; a probe proposes it only from a down seat whose
// declared budget cannot fit its card, and points at the log).
// Their steps live in runbooks/<id>.md; a test holds the two together.
export const RUNBOOKS = {
  'site-dark': 'a whole site is unreachable, BMC included: recover the power log, then power and blast radius',
  'ups-overload': 'a UPS is on battery, low, or overloaded: shed load before it trips',
  'gpu-oom-cotenant': 'a GPU is under its free-memory floor: measure the seats on it before moving or resizing one',
  'backend-down': 'the gateway answers but a backend seat does not: check the seat, not the gateway',
  'gateway-down': 'the gateway itself does not answer: every alias at every site is cut off until it does',
  'seat-unreachable': 'a seat is healthy inside its container but does not answer from outside: check the port binding',
} as const;

/** Started by name, or proposed with the log that decides them (`seat diagnose --seat`). */
export const NAMED_RUNBOOKS = {
  'kv-cache-boot-race': 'a seat fails engine init on a KV-cache ValueError when its GPU-mates boot with it',
} as const;

export type RunbookId = keyof typeof RUNBOOKS;

/** What a verdict may propose: a probe's runbooks, and a named one where its facts point at the log. */
export type ProposedRunbook = RunbookId | keyof typeof NAMED_RUNBOOKS;

/** The one line that says what a proposed runbook is for. */
export function runbookWhy(id: ProposedRunbook): string {
  return id in RUNBOOKS ? RUNBOOKS[id as RunbookId] : NAMED_RUNBOOKS[id as keyof typeof NAMED_RUNBOOKS];
}
