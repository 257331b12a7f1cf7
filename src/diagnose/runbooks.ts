// The runbooks a diagnosis can propose, by id, and the ones a person starts by name (the boot race
// is read from logs, which the probe does not see).
// Their steps live in runbooks/<id>.md; a test holds the two together.
export const RUNBOOKS = {
  'site-dark': 'a whole site is unreachable, BMC included: recover the power log, then power and blast radius',
  'ups-overload': 'a UPS is on battery, low, or overloaded: shed load before it trips',
  'gpu-oom-cotenant': 'a GPU is under its free-memory floor: measure the seats on it before moving or resizing one',
  'backend-down': 'the gateway answers but a backend seat does not: check the seat, not the gateway',
  'gateway-down': 'the gateway itself does not answer: every alias at every site is cut off until it does',
  'seat-unreachable': 'a seat is healthy inside its container but does not answer from outside: check the port binding',
} as const;

/** Started by name: nothing in a probe report proposes them yet. */
export const NAMED_RUNBOOKS = {
  'kv-cache-boot-race': 'a seat fails engine init on a KV-cache ValueError when its GPU-mates boot with it',
} as const;

export type RunbookId = keyof typeof RUNBOOKS;
