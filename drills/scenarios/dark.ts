// A dark site on loopback. Every 127/8 address answers a ping, so "unreachable" is made: inside a
// network namespace this drill creates (root and iproute2), where the dark addresses have an
// `unreachable` route and the probe's ping runs; else a ping stand-in that never answers for them.
// Either way nothing listens on their ports, and an ssh stand-in finds no route to their hosts.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertLoopback } from '../net.ts';
import { alive } from '../upsd/processes.ts';

const run = promisify(execFile);
const NS_PREFIX = 'seatbelt-drill-';

export interface DarkNetwork {
  /** For the probes: ping's argv prefix (inside the namespace), or none (the stand-in is on PATH). */
  pingCommand?: string[];
  /** How the addresses were made dark, for the briefing. */
  how: string;
  stop(): Promise<void>;
  /** Synchronous, for process exit. */
  stopNow(): void;
}

/**
 * `addresses` go dark: for ping (a namespace, or a stand-in in `binDir`) and for the ssh stand-in
 * copied into `binDir` (renamed ssh-drill and wrapped: drill@ADDRESS finds no route). `ping: false`
 * (no real ping here): no stand-in plays ICMP, so no address is made to fail a ping that was never
 * sent; inside a namespace the probe's ping then cannot start, and reads as not measured.
 */
export async function darken(addresses: string[], binDir: string, opts: { namespace?: boolean; ping?: boolean } = {}): Promise<DarkNetwork> {
  for (const a of addresses) assertLoopback(a, 'darken');
  wrapSsh(addresses, binDir);
  if (addresses.length === 0) return { how: 'nothing dark', stop: async () => {}, stopNow: () => {} };
  const ns = opts.namespace === false ? { why: 'not asked for' } : await namespace(addresses);
  if ('name' in ns) {
    let gone = false;
    const stopNow = (): void => {
      if (gone) return;
      gone = true;
      try {
        execFileSync('ip', ['netns', 'delete', ns.name], { stdio: 'ignore', timeout: 5000 });
      } catch {
        // already gone
      }
    };
    return {
      pingCommand: ['ip', 'netns', 'exec', ns.name, 'ping'],
      how: `network namespace ${ns.name}: no route to ${addresses.join(', ')}; the probes ping from inside it`,
      stop: async () => {
        if (gone) return;
        gone = true;
        await run('ip', ['netns', 'delete', ns.name], { timeout: 5000 }).catch(() => {});
      },
      stopNow,
    };
  }
  if (opts.ping === false) {
    return { how: `no network namespace (${ns.why}) and no ping here: ICMP is not measured; nothing listens on the ports of ${addresses.join(', ')}`, stop: async () => {}, stopNow: () => {} };
  }
  writePingStandIn(addresses, binDir);
  return { how: `no network namespace (${ns.why}): a ping stand-in never answers for ${addresses.join(', ')}`, stop: async () => {}, stopNow: () => {} };
}

/** A vantage point of its own: a network namespace where `addresses` have no route and the rest of
 * 127/8 is its own loopback (nothing of the root namespace listens there). A whole `seat probe` run
 * inside it (`exec`, an argv prefix) measures from there. None without root and iproute2: `why` says. */
export interface VantageView {
  exec: string[] | null;
  how: string;
  stop(): Promise<void>;
  stopNow(): void;
}

export async function vantageView(addresses: string[], opts: { namespace?: boolean } = {}): Promise<VantageView> {
  for (const a of addresses) assertLoopback(a, 'darken');
  const ns = opts.namespace === false ? { why: 'not asked for' } : await namespace(addresses);
  if (!('name' in ns)) return { exec: null, how: `no network namespace (${ns.why})`, stop: async () => {}, stopNow: () => {} };
  let gone = false;
  return {
    exec: ['ip', 'netns', 'exec', ns.name],
    how: `network namespace ${ns.name}: no route to ${addresses.join(', ')}, and its own loopback for the rest`,
    stop: async () => {
      if (gone) return;
      gone = true;
      await run('ip', ['netns', 'delete', ns.name], { timeout: 5000 }).catch(() => {});
    },
    stopNow: () => {
      if (gone) return;
      gone = true;
      try {
        execFileSync('ip', ['netns', 'delete', ns.name], { stdio: 'ignore', timeout: 5000 });
      } catch {
        // already gone
      }
    },
  };
}

async function namespace(addresses: string[]): Promise<{ name: string } | { why: string }> {
  if (process.getuid?.() !== 0) return { why: 'not root' };
  await sweepNamespaces();
  const name = `${NS_PREFIX}${process.pid}-${randomBytes(3).toString('hex')}`;
  try {
    await run('ip', ['netns', 'add', name], { timeout: 5000 });
  } catch (err) {
    return { why: `ip netns add: ${firstLine(err)}` };
  }
  try {
    await run('ip', ['-n', name, 'link', 'set', 'lo', 'up'], { timeout: 5000 });
    for (const a of addresses) await run('ip', ['-n', name, 'route', 'add', 'unreachable', `${a}/32`, 'table', 'local'], { timeout: 5000 });
    return { name };
  } catch (err) {
    await run('ip', ['netns', 'delete', name], { timeout: 5000 }).catch(() => {});
    return { why: `ip route in ${name}: ${firstLine(err)}` };
  }
}

/** Namespaces of drills whose process died without removing them. */
async function sweepNamespaces(): Promise<void> {
  let list: string;
  try {
    list = (await run('ip', ['netns', 'list'], { timeout: 5000 })).stdout;
  } catch {
    return;
  }
  for (const line of list.split('\n')) {
    const m = new RegExp(`^(${NS_PREFIX}(\\d+)-[0-9a-f]+)`).exec(line.trim());
    if (m && !alive(Number(m[2]))) await run('ip', ['netns', 'delete', m[1]!], { timeout: 5000 }).catch(() => {});
  }
}

function firstLine(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr || e.message || String(err)).trim().split('\n')[0] ?? '';
}

/** The drill's ssh stand-in, behind a wrapper: a dark host has no route; any other goes through. */
function wrapSsh(addresses: string[], binDir: string): void {
  renameSync(join(binDir, 'ssh'), join(binDir, 'ssh-drill'));
  const dark = addresses.map((a) => `drill@${a}`).join('|');
  const script = `#!/bin/bash
# Drill stand-in: the hosts of a dark site have no route; every other target goes to the drill's ssh stand-in.
for a in "$@"; do
  case "$a" in
    ${dark || '__none__'}) echo "ssh: connect to host \${a#drill@} port 22: No route to host" >&2; exit 255 ;;
  esac
done
exec "\${BASH_SOURCE[0]%/*}/ssh-drill" "$@"
`;
  writeFileSync(join(binDir, 'ssh'), script);
  chmodSync(join(binDir, 'ssh'), 0o755);
}

/** `ping -c 1 -W N ADDRESS` that waits N seconds and reports no reply for a dark address. */
function writePingStandIn(addresses: string[], binDir: string): void {
  const script = `#!/bin/bash
# Drill stand-in for ping (no network namespace here): a dark address never answers; any other is pinged for real.
addr="\${!#}"
wait=1
while getopts "c:W:" o 2>/dev/null; do [[ $o == W ]] && wait="$OPTARG"; done
case "$addr" in
  ${addresses.join('|')})
    echo "PING $addr ($addr) 56(84) bytes of data."
    sleep "$wait"
    printf '\\n--- %s ping statistics ---\\n1 packets transmitted, 0 received, 100%% packet loss, time 0ms\\n' "$addr"
    exit 1 ;;
esac
self="\${BASH_SOURCE[0]%/*}"
PATH="$(printf '%s' "$PATH" | tr ':' '\\n' | grep -vxF "$self" | paste -sd: -)"
exec ping "$@"
`;
  writeFileSync(join(binDir, 'ping'), script);
  chmodSync(join(binDir, 'ping'), 0o755);
}
