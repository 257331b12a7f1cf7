// `seat drill <scenario>`: a seed's incident played against loopback stand-ins, in a console. The real
// probes, runbooks, guardrails, journal and export run unchanged on the drill fleet (`drill: true`,
// so every report and incident says DRILL); the journal lives in the drill's own folder unless
// SEAT_JOURNAL says otherwise. The stand-ins stop when the console ends.
import type { DrillCommand } from '../commands/table.ts';
import { nearest } from '../commands/suggest.ts';
import { GUARDRAILS } from '../guardrails/index.ts';
import { journalPath } from '../journal/location.ts';
import { ProbeMemory } from '../probes/memory.ts';
import { loadRunbooks } from '../runbooks/load.ts';
import { runConsole } from './console.ts';
import { openService } from './incident.ts';
import type { CliIo, ExitCode, RunCli } from './io.ts';

/** `run` runs each line typed in the drill's console (runCli; a parameter, so this file need not import run.ts). */
export async function drillToTerminal(cmd: DrillCommand, io: CliIo, run: RunCli): Promise<ExitCode> {
  // The drill lives outside src/: loaded only here, never by the bot or the other commands.
  const { SCENARIOS, DEFAULT_SCENARIO, scenarioNamed, startScenario } = await import('../../drills/scenarios/index.ts');
  if (cmd.list) {
    const width = Math.max(...SCENARIOS.map((s) => s.id.length)) + 2;
    for (const s of SCENARIOS) io.stdout.write(`${s.id.padEnd(width)}${s.seed}: ${s.summary}\n`);
    io.stdout.write(`start one: seat drill <scenario> (default ${DEFAULT_SCENARIO})\n`);
    return 0;
  }
  const id = cmd.scenario ?? DEFAULT_SCENARIO;
  const scenario = scenarioNamed(id);
  if (!scenario) {
    const ids = SCENARIOS.map((s) => s.id);
    const guess = nearest(id, ids);
    io.stderr.write(`seat: no drill scenario "${id}"${guess ? ` (did you mean ${guess}?)` : ''}; known: ${ids.join(', ')} (seat drill --list)\n`);
    return 2;
  }
  if (!io.stdin) {
    io.stderr.write('seat: a drill is played in a console: it needs a terminal or lines on standard input\n');
    return 2;
  }
  io.stderr.write(`seat: starting drill ${id} on loopback…\n`);
  const keep = Boolean(io.env.SEAT_DRILL_KEEP);
  let drill: Awaited<ReturnType<typeof startScenario>>;
  try {
    drill = await startScenario(scenario, { keep, env: io.env });
  } catch (err) {
    io.stderr.write(`seat: cannot start drill ${id}: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}\n`);
    return 3;
  }
  let replicas: { lines: string[]; stop(): Promise<void> } | undefined;
  try {
    const env = { ...io.env, ...drill.env };
    // The drill's memory stays in the process: its inventory is made afresh each time, a file would be litter.
    const consoleIo: CliIo = { ...io, env, probeDeps: { memory: new ProbeMemory(), ...io.probeDeps, env, ...drill.probe } };
    const journal = journalPath(env, drill.fleet.inventory, drill.inventoryPath);
    // The drill's other vantages answer as replicas on its journal: the console's probes ask them.
    const { startDrillReplicas } = await import('../../drills/scenarios/vantage-replica.ts');
    replicas = await startDrillReplicas(drill, journal.path, io.env);
    const paths = (name: string): string => drill.files.get(name) ?? name;
    const first = scenario.firstSteps(paths);
    const width = Math.max(...first.map(([c]) => c.length)) + 3;
    const ownJournal = journal.from !== 'SEAT_JOURNAL';
    const intro = [
      `seat drill ${id} · ${scenario.seed} · DRILL: loopback stand-ins, not the fleet; the journal marks its incidents as drills`,
      ...drill.tools,
      ...scenario.story.map((l) => `  ${l}`),
      'type first:',
      ...first.map(([c, why]) => `  ${c.padEnd(width)}${why}`),
      `stand-ins: ${[...drill.standIns, ...(replicas?.lines ?? [])].join('\n           ')}`,
      `inventory: ${drill.inventoryPath} (a second terminal: SEAT_INVENTORY=<it> seat …)`,
      ...scenario.files.map((f) => `${f.what}: ${paths(f.name)} (${f.from})`),
      `journal:   ${journal.path}${ownJournal ? (keep ? ' (kept: SEAT_DRILL_KEEP)' : ' (removed with the drill; SEAT_DRILL_KEEP=1 keeps it, or set SEAT_JOURNAL)') : ' (SEAT_JOURNAL)'}`,
      ...drill.notes.map((n) => `note: ${n}`),
      'help lists every command · Tab completes · exit, quit or Ctrl-D ends the drill and stops its stand-ins',
    ];
    const { runbooks } = await loadRunbooks();
    const steps = async (): Promise<string[]> => {
      const { service, store } = await openService(drill.fleet, consoleIo, drill.inventoryPath);
      try {
        const open = await store.newestOpen();
        return open ? ((await service.view(open.id))?.steps.map((s) => s.spec.id) ?? []) : [];
      } finally {
        await store.close();
      }
    };
    return await runConsole({
      prompt: `seat drill ${id}> `,
      intro,
      argvPrefix: ['--inventory', drill.inventoryPath],
      io: consoleIo,
      run,
      words: { sites: drill.fleet.siteNames, hosts: [...drill.fleet.hosts.keys()], runbooks: [...runbooks.keys()], guardrails: [...GUARDRAILS.keys()], files: [...drill.files.values()], steps },
      defaultSite: scenario.site,
      refuse: {
        drill: `this is drill ${id} already: exit it first, then seat drill <scenario>`,
        bot: 'the bot is not started from a drill console: npm start with SLACK_BOT_TOKEN set runs it',
      },
    });
  } finally {
    await replicas?.stop();
    await drill.stop();
    io.stderr.write(`seat: drill ${id} over: its stand-ins are stopped${keep ? `; its folder is kept: ${drill.dir}` : ' and its folder removed'}\n`);
  }
}
