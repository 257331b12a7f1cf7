// The bot's events as JSON lines on stdout when stdout is not a terminal (journald, docker logs, a
// log shipper): one line per event, {"time","level","event",...fields}. Every secret the bot holds
// (the Slack tokens, the Alertmanager token, the gateway keys' values) is replaced by [redacted]
// wherever it appears in a line, and so is anything shaped like a Slack token or a bearer token.
import type { Fleet } from '../inventory/fleet.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | null>;
/** One event: a dotted name (alertmanager.accepted) and flat fields. Never throws. */
export type OpsLog = (level: LogLevel, event: string, fields?: LogFields) => void;

export const REDACTED = '[redacted]';
const SECRET_VARS = ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET', 'SEAT_ALERTMANAGER_TOKEN'];

/** The values to take out of every line: the bot's tokens and the inventory's gateway keys, read from env. */
export function secretsOf(env: NodeJS.ProcessEnv, fleet?: Fleet): string[] {
  const vars = [...SECRET_VARS, ...Object.values(fleet?.inventory.gateway.keys ?? {}).map((k) => k.env)];
  return [...new Set(vars.map((v) => env[v]).filter((v): v is string => typeof v === 'string' && v.length >= 4))].sort((a, b) => b.length - a.length);
}

export function redact(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of secrets) out = out.split(s).join(REDACTED);
  return out.replace(/xox[abposr]-[A-Za-z0-9-]{6,}/g, REDACTED).replace(/(Bearer\s+)[^\s"\\]{6,}/gi, `$1${REDACTED}`);
}

export interface JsonLogOptions {
  write: (line: string) => unknown;
  secrets: readonly string[];
  now?: () => Date;
}

export function jsonLog(o: JsonLogOptions): OpsLog {
  const now = o.now ?? (() => new Date());
  return (level, event, fields = {}) => {
    try {
      const line = JSON.stringify({ time: now().toISOString(), level, event, ...fields });
      o.write(`${redact(line, o.secrets)}\n`);
    } catch {
      // A log line is never worth a crash.
    }
  };
}

export const silentLog: OpsLog = () => {};

/** A Bolt Logger over an OpsLog: Bolt's own messages become `slack` events. */
export function boltLogger(log: OpsLog): { debug(...m: unknown[]): void; info(...m: unknown[]): void; warn(...m: unknown[]): void; error(...m: unknown[]): void; setLevel(): void; getLevel(): 'info'; setName(): void } {
  const line = (m: unknown[]): string => m.map((x) => (typeof x === 'string' ? x : x instanceof Error ? x.message : JSON.stringify(x) ?? String(x))).join(' ').slice(0, 2000);
  return {
    debug: () => {},
    info: (...m) => log('info', 'slack', { message: line(m) }),
    warn: (...m) => log('warn', 'slack', { message: line(m) }),
    error: (...m) => log('error', 'slack', { message: line(m) }),
    setLevel: () => {},
    getLevel: () => 'info',
    setName: () => {},
  };
}
