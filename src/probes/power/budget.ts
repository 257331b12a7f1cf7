/** The probe's own budget: a little under the runner's, so the probe reports what it saw before the runner gives up on it. */
export function innerBudget(timeoutMs: number): number {
  return Math.max(1, timeoutMs - Math.min(100, Math.floor(timeoutMs / 10)));
}
