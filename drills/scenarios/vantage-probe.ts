// A `seat probe` from one of a drill's other vantage points (issue 33): a whole `seat` process with
// SEAT_VANTAGE set, inside the network namespace the drill made for that vantage — or, where none could
// be made and the vantage sees what the console sees (a stand-in, RunningDrill.vantages says so), beside
// the console on the drill's own stand-ins. Its --json report names its vantage on every finding, ready
// for mergeVantages beside the console's. It reads the drill's journal as any replica would, so
// no-poll-dark-site holds it too.
import { execFile } from 'node:child_process';
import type { VantageReport } from '../../src/diagnose/vantage.ts';
import type { RunningDrill } from './start.ts';
import { seatCommand, vantageEnv } from './vantage-replica.ts';

/** Output a probe report may reach before the process is cut. */
const MAX_BUFFER = 16 * 1024 * 1024;

/** A `seat probe --json` report as a vantage's process writes it: what merging and a test read. */
export interface VantageJson extends VantageReport {
  vantages: string[];
  verdict: { status: string; headline: string; lines: string[]; runbook: string | null; proposal: { rule: string; sites: string[] } | null };
}

export type VantageProbeError = 'no_vantage' | 'not_played' | 'failed';
export type VantageProbe = { ok: true; report: VantageJson; code: number; stderr: string } | { ok: false; code: VantageProbeError; error: string };

/**
 * `seat --inventory <drill's> <args> --json` from the drill's vantage `name`, as its own process, ended
 * after `timeoutMs`. Exit 0 or 1 (something not up) with a report is a result; anything else says why.
 */
export async function probeFromVantage(drill: Pick<RunningDrill, 'vantages' | 'inventoryPath' | 'env' | 'probe'>, name: string, args: string[], o: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<VantageProbe> {
  const v = drill.vantages.find((x) => x.name === name);
  if (!v) return { ok: false, code: 'no_vantage', error: `the drill plays no vantage ${name} (it plays ${drill.vantages.map((x) => x.name).join(', ') || 'none'})` };
  if (!v.exec) return { ok: false, code: 'not_played', error: v.how };
  const env = vantageEnv(drill, name, o.env ?? process.env);
  const argv = [...v.exec, ...seatCommand(), '--inventory', drill.inventoryPath, ...args, ...(args.includes('--json') ? [] : ['--json'])];
  const r = await run(argv, env, o.timeoutMs ?? 60_000);
  if (r.code !== 0 && r.code !== 1) return { ok: false, code: 'failed', error: `seat probe from ${name} ${r.code === null ? 'was stopped' : `exited ${r.code}`}: ${firstLine(r.stderr)}` };
  try {
    return { ok: true, report: JSON.parse(r.stdout) as VantageJson, code: r.code, stderr: r.stderr };
  } catch {
    return { ok: false, code: 'failed', error: `seat probe from ${name} wrote no report: ${firstLine(r.stderr)}` };
  }
}

function run(argv: string[], env: NodeJS.ProcessEnv, timeout: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { env, timeout, maxBuffer: MAX_BUFFER, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}
