// The webhook's bearer token (Alertmanager's http_config.authorization): SEAT_ALERTMANAGER_TOKEN,
// compared in constant time. Both sides are hashed first, so the comparison is of equal lengths
// whatever was sent, and a token's length is not told by the time it takes.
import { createHash, timingSafeEqual } from 'node:crypto';

export const TOKEN_VAR = 'SEAT_ALERTMANAGER_TOKEN';
/** Shorter is refused at start: a guessable token is no authentication. */
export const MIN_TOKEN_CHARS = 16;

export type TokenResult = { ok: true; token: string } | { ok: false; off: true; why: string } | { ok: false; off: false; error: string };

export function readToken(env: NodeJS.ProcessEnv): TokenResult {
  const raw = env[TOKEN_VAR];
  if (raw === undefined || raw === '') return { ok: false, off: true, why: `${TOKEN_VAR} is not set` };
  if (raw.length < MIN_TOKEN_CHARS) return { ok: false, off: false, error: `${TOKEN_VAR} is shorter than ${MIN_TOKEN_CHARS} characters: use a long random one (openssl rand -hex 32)` };
  if (/\s/.test(raw)) return { ok: false, off: false, error: `${TOKEN_VAR} has white space in it` };
  return { ok: true, token: raw };
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Whether an Authorization header carries the token as `Bearer <token>`. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer ([^\s]{1,4096})$/i.exec(header ?? '');
  const given = m?.[1] ?? '';
  // Always one comparison, of two 32-byte digests.
  const same = timingSafeEqual(digest(given), digest(token));
  return same && m !== null;
}
