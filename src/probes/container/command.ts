// How a GPU host is asked: the tool's words here for a `local` host, else over ssh with the probes'
// options. Shared by the container and the systemd unit probes.
import type { HostRef } from '../../inventory/fleet.ts';

/** The words as a command here for a `local` host, else over ssh (plain words: the remote shell re-parses them). */
export function hostCommand(host: HostRef, words: string[], timeoutMs: number): string[] {
  if (host.host.ssh === 'local') return words;
  // Under the kill timeout, so an unreachable host gets ssh's own "timed out" (down), not our kill (unknown).
  const connectTimeout = Math.max(1, Math.floor((timeoutMs - 500) / 1000));
  return ['ssh', '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connectTimeout}`, host.host.ssh, ...words];
}

/** What ssh says when it cannot get there. Its "Permission denied (publickey)" has a parenthesis; docker's
 * "permission denied while trying to connect to the Docker daemon socket" does not. */
export const SSH_WORDS = /^ssh:|connection (timed out|refused|closed|reset)|could not resolve|no route to host|permission denied \(|host key verification failed/im;
