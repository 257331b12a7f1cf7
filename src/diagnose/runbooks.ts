// The runbooks a diagnosis can propose, by id. Their steps live in runbooks/<id>.md.
export const RUNBOOKS = {
  'site-dark': 'a whole site is unreachable, BMC included: recover the power log, then power and blast radius',
  'ups-overload': 'a UPS is on battery, low, or overloaded: shed load before it trips',
  'seat-oom': 'a GPU is under its free-memory floor: measure the seats on it before moving or resizing one',
  'backend-down': 'the gateway answers but a backend seat does not: check the seat, not the gateway',
  'gateway-down': 'the gateway itself does not answer: every alias at every site is cut off until it does',
} as const;

export type RunbookId = keyof typeof RUNBOOKS;
