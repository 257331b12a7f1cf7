// `npm start`: the Slack bot when SLACK_BOT_TOKEN is set. Without it, and without arguments or a
// fleet of its own: the console on the drill when someone can type (a terminal, or lines piped in);
// else `seat probe all` (or the arguments after `npm start --`) — on SEAT_INVENTORY when set, else on
// the drill, whose loopback stand-ins start here and stop when it is done. One drill everywhere, the
// console, the run without a terminal and the bot: fv-site-dark, or the scenario SEAT_DRILL names.
import { fstatSync } from 'node:fs';
import { runCli } from './run.ts';
import { journalPath } from '../journal/location.ts';

/** How long a pipe on stdin may stay silent before it counts as nothing typed (a CI runner's idle stdin). */
const PIPE_WAIT_MS = 1500;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  let closing: Promise<void> | undefined;
  let stopDrill: (() => Promise<void>) | undefined;
  // A reader that closes the pipe early (`| head`) still gets the drill's stand-ins stopped.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    // The reader is gone: stop the stand-ins and end as a closed pipe does (128 + SIGPIPE).
    if (err.code !== 'EPIPE') process.stderr.write(`seat: cannot write the report: ${err.message.split('\n')[0]}\n`);
    closing ??= (stopDrill?.() ?? Promise.resolve()).finally(() => process.exit(err.code === 'EPIPE' ? 141 : 3));
  });
  // With tokens: the bot. Without: `seat probe all` (or the given arguments).
  const namesInventory = args.some((a) => a === '--inventory' || a === '-i' || a.startsWith('--inventory='));
  const inventoryOnly = namesInventory && args.length === (args.some((a) => a.startsWith('--inventory=')) ? 1 : 2);
  const command = process.env.SLACK_BOT_TOKEN ? ['bot', ...args] : args.length && !inventoryOnly ? args : [...args, 'probe', 'all'];
  // Ctrl-C or kill during a probe: stop the stand-ins (upsd, drivers) before going. The bot
  // stops gracefully on its own signal handlers.
  if (command[0] !== 'bot') {
    for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      process.once(sig, () => {
        closing ??= (stopDrill?.() ?? Promise.resolve()).finally(() => process.exit(code));
      });
    }
  }
  const io = { stdout: process.stdout, stderr: process.stderr, env: process.env };
  if (!process.env.SLACK_BOT_TOKEN) process.stderr.write('seat: no Slack tokens (SLACK_BOT_TOKEN is unset): the terminal instead of the bot\n');
  // Nothing asked for and someone to type: the console on a drill (`seat drill`), stand-ins and all.
  const named = process.env.SEAT_DRILL || undefined;
  if (command[0] !== 'bot' && args.length === 0 && !process.env.SEAT_INVENTORY && (await someoneTypes(process.stdin))) {
    return runCli(['drill', ...(named ? [named] : [])], { ...io, stdin: process.stdin });
  }
  // `npm start -- drill <scenario>`: the drill starts its own stand-ins.
  if (command[0] === 'drill') return runCli(command, { ...io, stdin: process.stdin });
  // A configured fleet is used as it is; only without one do the drill's stand-ins start.
  // As a one-shot `seat`: asked when the process began (a probe's timeout counts from there).
  if (process.env.SEAT_INVENTORY || namesInventory) return runCli(command, { ...io, askedAt: 0 });

  // The drill lives outside src/: loaded only here, never by the bot or the CLI.
  const { SCENARIOS, DEFAULT_SCENARIO, scenarioNamed, startScenario } = await import('../../drills/scenarios/index.ts');
  const scenario = scenarioNamed(named ?? DEFAULT_SCENARIO);
  if (!scenario) {
    process.stderr.write(`seat: SEAT_DRILL names no drill scenario "${named ?? ''}"; known: ${SCENARIOS.map((x) => x.id).join(', ')} (seat drill --list)\n`);
    return 2;
  }
  process.stderr.write(`seat: starting the drill fleet on loopback: drill ${scenario.id} (${scenario.seed}; SEAT_DRILL=<scenario> plays another, seat drill --list names them)…\n`);
  const drill = await startScenario(scenario, { keep: Boolean(process.env.SEAT_DRILL_KEEP) });
  stopDrill = () => drill.stop();
  for (const n of [...drill.tools, ...drill.notes]) process.stderr.write(`seat: drill: ${n}\n`);
  // The drill's other vantages answer as replicas on its journal: the probe below asks them.
  const { startDrillReplicas } = await import('../../drills/scenarios/vantage-replica.ts');
  const env = { ...process.env, ...drill.env };
  const replicas = command[0] === 'bot' ? null : await startDrillReplicas(drill, journalPath(env, drill.fleet.inventory, drill.inventoryPath).path);
  stopDrill = async () => {
    await replicas?.stop();
    await drill.stop();
  };
  for (const n of replicas?.lines ?? []) process.stderr.write(`seat: drill: ${n}\n`);
  try {
    return await runCli(['--inventory', drill.inventoryPath, ...command], { ...io, env, probeDeps: { env, ...drill.probe } });
  } finally {
    await replicas?.stop();
    await drill.stop();
  }
}

/** A terminal, or lines piped in; not /dev/null, an empty file or a pipe that stays silent. */
async function someoneTypes(stdin: NodeJS.ReadStream): Promise<boolean> {
  if (stdin.isTTY) return true;
  let kind: 'file' | 'pipe' | 'other';
  let size = 0;
  try {
    const st = fstatSync(0);
    kind = st.isFile() ? 'file' : st.isFIFO() || st.isSocket() ? 'pipe' : 'other';
    size = st.size;
  } catch {
    kind = 'other';
  }
  if (kind !== 'pipe') return kind === 'file' && size > 0;
  const typed = await new Promise<boolean>((resolve) => {
    const done = (v: boolean): void => {
      clearTimeout(timer);
      stdin.off('readable', onReadable);
      stdin.off('end', onEnd);
      resolve(v);
    };
    const onReadable = (): void => {
      const chunk = stdin.read() as Buffer | null;
      if (chunk === null) return; // the end is coming
      stdin.unshift(chunk); // the console reads it first
      done(true);
    };
    const onEnd = (): void => done(false);
    const timer = setTimeout(() => done(false), PIPE_WAIT_MS);
    stdin.on('readable', onReadable);
    stdin.on('end', onEnd);
  });
  // Nothing came: let go of the pipe, or it keeps the process alive after the report.
  if (!typed) stdin.destroy();
  return typed;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`seat: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
    process.exitCode = 3;
  },
);
