// The front end's last word when the engine core died during start-up: `RuntimeError: Engine core
// initialization failed. See root cause above.` The cause is some lines earlier.
import type { Reading } from '../types.ts';

export function engineInitFailed(text: string): Reading | null {
  if (!/Engine core initialization failed/i.test(text)) return null;
  return { kind: 'engine_init_failed', fields: {}, partial: false };
}
