// `seat ...` from a shell. One top-level catch decides the exit code; no stack trace reaches a person.
import { readFileSync } from 'node:fs';

/**
 * `seat --version` and `seat help` before anything else loads: the version from package.json, the
 * usage as the build wrote it (dist/usage.txt, made from the command table by `npm run build`).
 * Under tsx (no dist/usage.txt) help goes the long way, through the table.
 */
async function quick(argv: string[]): Promise<boolean> {
  const [first, ...rest] = argv;
  if (rest.length > 0) return false;
  if (first === '--version' || first === 'version') {
    const { PACKAGE_NAME, readVersion } = await import('./version.ts');
    process.stdout.write(`${PACKAGE_NAME} ${(await readVersion()) ?? 'unknown (no package.json found beside the program)'}\n`);
    return true;
  }
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    let usage: string;
    try {
      usage = readFileSync(new URL('../../usage.txt', import.meta.url), 'utf8');
    } catch {
      return false;
    }
    process.stdout.write(usage);
    return true;
  }
  return false;
}

async function main(): Promise<void> {
  // `seat probe all | head` closes the pipe early: that is the reader's choice, not an error.
  // The reader is gone: end as a closed pipe does (128 + SIGPIPE), not with a half-made exit code.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(141);
    process.stderr.write(`seat: cannot write the report: ${err.message.split('\n')[0]}\n`);
    process.exit(3);
  });
  try {
    if (await quick(process.argv.slice(2))) return;
    // Children run in process groups of their own (ssh, nvidia-smi, ping) and do not get the terminal's
    // Ctrl-C: the reaper kills the ones still running on the way out. (`seat bot` stops gracefully.)
    // Loaded after the quick answers, which start no child.
    const { createReaper } = await import('../probes/edge/exec.ts');
    const reaper = createReaper();
    process.once('exit', () => reaper.killAll());
    if (!process.argv.slice(2).includes('bot')) {
      process.once('SIGINT', () => {
        reaper.killAll();
        process.exit(130);
      });
      process.once('SIGTERM', () => {
        reaper.killAll();
        process.exit(143);
      });
    }
    const { endsWhenDone, runCli } = await import('./run.ts');
    const argv = process.argv.slice(2);
    const code = await runCli(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, probeDeps: { reaper }, stdin: process.stdin, askedAt: 0 });
    process.exitCode = code;
    // A probe is done and has nothing left running: leave once what it wrote has left node's buffers,
    // rather than wait for node to wind down what is still open (connections, their handles): the
    // prompt, and the end of a pipe into jq, come a few ms sooner. A turn of the loop first, so that a
    // write that failed (a closed pipe, a full disk) has had its handler above set the exit code. Not
    // when the write is still under way (a full pipe, a socket): node ends once it is out.
    if (endsWhenDone(argv)) {
      setImmediate(() => {
        const out = [process.stdout, process.stderr];
        if (out.every((s) => s.writableLength === 0 && !s.errored)) process.exit(code);
      });
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`seat: internal error: ${message.split('\n')[0]}\n(set SEAT_DEBUG=1 for the full trace)\n`);
    if (process.env.SEAT_DEBUG) process.stderr.write(`${err instanceof Error ? err.stack : ''}\n`);
    process.exitCode = 3;
  }
}

await main();
