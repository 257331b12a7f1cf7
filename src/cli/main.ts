// `seat ...` from a shell. One top-level catch decides the exit code; no stack trace reaches a person.
import { runCli } from './run.ts';

async function main(): Promise<void> {
  // `seat probe all | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
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
