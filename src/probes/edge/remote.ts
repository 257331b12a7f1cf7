// What a tool run here or over ssh failed with, in the words of a finding: the runner's own codes
// (timeout, stop, not found, too large, killed), and when an exit 255 is ssh's and not the tool's.
// The GPU query and the container inspect both ask through it; each judges its tool's own exits.
import type { FindingStatus, Reason } from '../types.ts';
import type { CommandResult } from './exec.ts';
import { clean, fmtInt } from './text.ts';

export interface Failure {
  status: FindingStatus;
  reason: Reason;
  detail: string;
}

export interface RunWords {
  /** What was started: `ssh` for a remote host, else the tool itself. */
  launcher: string;
  /** The tool asked (`nvidia-smi`, `docker`). */
  tool: string;
  timeoutMs: number;
  /** The output cap it went over. */
  maxBytes: number;
}

/** null: it exited 0. A failure: it did not exit by itself. undefined: it exited non-zero, the caller's to read. */
export function runFailure(r: CommandResult, w: RunWords): Failure | null | undefined {
  switch (r.code) {
    case 'ok':
      return null;
    case 'timeout':
      return { status: 'unknown', reason: 'timeout', detail: `no answer within ${w.timeoutMs} ms (killed)` };
    case 'stopped':
      return { status: 'unknown', reason: 'stopped', detail: 'stopped before an answer (cancelled)' };
    case 'not_found':
      return { status: 'unknown', reason: 'tool_missing', detail: `${w.launcher} not found on PATH` };
    case 'too_large':
      return { status: 'unknown', reason: 'too_large', detail: `${w.tool} answered over ${fmtInt(w.maxBytes)} bytes: cut, not read` };
    case 'killed':
      return { status: 'unknown', reason: 'tool_failed', detail: `${w.tool} was killed by ${r.signal ?? 'a signal'}` };
    default:
      return undefined;
  }
}

/**
 * ssh itself exits 255; so can the remote tool. Only ssh's own words (`sshWords`), or silence on both
 * streams where the tool would have said something of its own (`toolWords`), mean ssh.
 */
export function failedInSsh(r: CommandResult, sshWords: RegExp, toolWords: RegExp): boolean {
  if (sshWords.test(r.stderr)) return true;
  return r.stdout.trim() === '' && !toolWords.test(r.stderr);
}

/** ssh could not get there: reached but refused (keys, host key) is not the same as a host that does not answer. */
export function sshFailure(ssh: string, err: string, shown = err): Failure {
  const refused = /permission denied|host key verification failed|too many authentication/i.test(err);
  return { status: refused ? 'unknown' : 'down', reason: refused ? 'ssh_refused' : 'unreachable', detail: `ssh to ${ssh} failed: ${shown || 'exit 255'}` };
}

/** The first 60 characters of an answer that could not be read, quoted, for the finding that says so. */
export function first60(s: string): string {
  const one = clean(s.slice(0, 4096)).replace(/\s+/g, ' ').trim();
  return one === '' ? '(nothing)' : JSON.stringify(one.length > 60 ? one.slice(0, 60) : one);
}
