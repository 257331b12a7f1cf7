// A seat's recent container log, fetched the way the probes reach a host: an argv array, `ssh -o
// BatchMode=yes -o ConnectTimeout=N <host> docker logs …` (no remote shell string to quote). docker
// writes the container's stdout and stderr to its own two streams (vLLM logs to stdout; Python
// tracebacks and FlashInfer's warnings go to stderr), so it is asked for timestamps and the two are
// merged back into the order they were written.
import { splitLines } from './lines.ts';

export const DOCKER_TAIL = 20_000;

export function dockerLogsArgv(ssh: string, container: string, since: string, connectTimeoutS: number): string[] {
  return ['ssh', '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connectTimeoutS}`, ssh, 'docker', 'logs', '--timestamps', '--since', since, '--tail', String(DOCKER_TAIL), container];
}

// 2026-09-04T16:45:12.123456789Z: nanoseconds, trailing zeros trimmed.
const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z/;

function keyOf(line: string): string | null {
  const m = STAMP.exec(line);
  return m ? `${m[1]}.${(m[2] ?? '').padEnd(9, '0')}` : null;
}

/** The two streams' lines in time order; a line without a stamp stays behind the line before it. */
export function* mergeByTime(stdout: string, stderr: string): Generator<string> {
  const a = splitLines(stdout);
  const b = splitLines(stderr);
  let x = a.next();
  let y = b.next();
  let keyA = x.done ? null : keyOf(x.value);
  let keyB = y.done ? null : keyOf(y.value);
  while (!x.done || !y.done) {
    const takeA = y.done || (!x.done && (keyA === null || keyB === null || keyA <= keyB));
    if (takeA && !x.done) {
      yield x.value;
      x = a.next();
      if (!x.done) keyA = keyOf(x.value) ?? keyA;
    } else if (!y.done) {
      yield y.value;
      y = b.next();
      if (!y.done) keyB = keyOf(y.value) ?? keyB;
    }
  }
}
