// `seat ...` from a shell. One top-level catch decides the exit code; no stack trace reaches a person.
import { runCli } from './run.ts';

async function main(): Promise<void> {
  // `seat probe all | head` closes the pipe early: that is the reader's choice, not an error.
  // The reader is gone: end as a closed pipe does (128 + SIGPIPE), not with a half-made exit code.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(141);
    process.stderr.write(`seat: cannot write the report: ${err.message.split('\n')[0]}\n`);
    process.exit(3);
  });
  // Ctrl-C / kill: exit through process.exit so the 'exit' hooks stop probes still running
  // in their own process groups (ssh, nvidia-smi).
  // (`seat bot` has its own: it stops gracefully.)
  if (!process.argv.slice(2).includes('bot')) {
    process.once('SIGINT', () => process.exit(130));
    process.once('SIGTERM', () => process.exit(143));
  }
  try {
    process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`seat: internal error: ${message.split('\n')[0]}\n(set SEAT_DEBUG=1 for the full trace)\n`);
    if (process.env.SEAT_DEBUG) process.stderr.write(`${err instanceof Error ? err.stack : ''}\n`);
    process.exitCode = 3;
  }
}

await main();
