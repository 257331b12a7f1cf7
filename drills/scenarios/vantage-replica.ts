// A drill's other vantage points as replicas (issue 33): for each, a real `seat vantage` process
// inside the network namespace the drill made for it (or beside the console where the drill plays
// it as a stand-in), on the drill's journal. The console's own `probe` then asks them through the
// journal as it asks any live replica, and its verdict rests on every vantage that answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunningDrill } from './start.ts';

// Compiled (npm start runs dist/), the compiled entry; from the sources (tests, tsx), the source through tsx.
const COMPILED = import.meta.url.endsWith('.js');
const MAIN = fileURLToPath(new URL(`../../src/cli/main.${COMPILED ? 'js' : 'ts'}`, import.meta.url));
const NODE_ARGS = COMPILED ? [] : ['--import', 'tsx'];
/** How long a replica may take to say it answers before the drill goes on without it. */
const READY_MS = 30_000;

/** `seat` as a child process: node and the entry point, compiled or through tsx. */
export function seatCommand(): string[] {
  return [process.execPath, ...NODE_ARGS, MAIN];
}

/** The environment of a `seat` run from one of a drill's vantages: the drill's stand-ins first on PATH, its keys, the vantage named. */
export function vantageEnv(drill: Pick<RunningDrill, 'env' | 'probe'>, name: string, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    PATH: [...drill.probe.pathPrefix, base.PATH ?? '/usr/bin:/bin'].join(':'),
    HOME: base.HOME ?? '/tmp',
    SEAT_PROBE_MEMORY: 'off',
    NO_COLOR: '1',
    ...drill.env,
    SEAT_VANTAGE: name,
  };
}

export interface DrillReplicas {
  /** One line each: which vantage answers from where, or why it does not. */
  lines: string[];
  stop(): Promise<void>;
}

export async function startDrillReplicas(drill: Pick<RunningDrill, 'vantages' | 'inventoryPath' | 'env' | 'probe'>, journal: string, base: NodeJS.ProcessEnv = process.env): Promise<DrillReplicas> {
  const children: ChildProcess[] = [];
  const lines: string[] = [];
  await Promise.all(
    drill.vantages.map(async (v) => {
      if (!v.exec) {
        lines.push(`vantage ${v.name}: no replica (${v.how})`);
        return;
      }
      const env: NodeJS.ProcessEnv = { ...vantageEnv(drill, v.name, base), SEAT_REPLICA: `drill-${v.name}`, SEAT_JOURNAL: journal };
      const argv = [...v.exec, ...seatCommand(), '--inventory', drill.inventoryPath, 'vantage'];
      const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let err = '';
      child.stderr?.on('data', (b: Buffer) => void (err = (err + b.toString()).slice(-4000)));
      const ready = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), READY_MS);
        const look = (): void => {
          if (/answering the bot replicas' probe requests/.test(err)) {
            clearTimeout(t);
            resolve(true);
          }
        };
        child.stderr?.on('data', look);
        child.once('exit', () => {
          clearTimeout(t);
          resolve(false);
        });
      });
      lines.push(ready ? `vantage ${v.name}: a replica answers from there (seat vantage, replica drill-${v.name})` : `vantage ${v.name}: its replica did not start (${err.trim().split('\n').at(-1) ?? 'no word'})`);
    }),
  );
  return {
    lines,
    stop: async () => {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              const hard = setTimeout(() => c.kill('SIGKILL'), 5000);
              c.once('exit', () => {
                clearTimeout(hard);
                resolve();
              });
              c.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
