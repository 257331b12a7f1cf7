// Seed 002, 2026-09-13 06:58: a benchmark on fv-ml1's GPU 3 beside live testing on GPU 2, and the
// 1500 VA UPS gave out: every Fountain Valley address dark, BMC and firewall included; 19 of 30
// aliases down; the power log on /tank the only load figure there is. Seed 002's proof was "all
// other sites 0% loss": the drill plays a second vantage, a replica at irv (its own network namespace,
// where fv has no route; else a stand-in beside the console), so site dark rests on two vantages.
import type { Scenario } from './types.ts';

const GPU_NAME = 'NVIDIA RTX PRO 6000 Blackwell Server Edition';
const POWER_LOG_ORIGIN = '/tank/aimodels/flash-next-mtp-bench/power.log';

/** Watts per card at second `s` after 06:51:08: idle as the seed measured it, then two cards loaded. */
function draw(gpu: number, s: number): number {
  const wobble = ((s * 37 + gpu * 101) % 23) / 10; // deterministic, a few watts
  switch (gpu) {
    case 0:
      return 3.8 + wobble / 10;
    case 1:
      return 3.88 + wobble / 10;
    case 2: // flash-next live testing: long prefills from 06:52
      return s < 50 ? 14.27 + wobble : 430 + ((s * 13) % 140) + wobble;
    default: // the MTP campaign: load at 06:51:40, rep 1 at 06:52:30, rep 2 at 06:56:04
      return s < 30 ? 6.75 + wobble : s < 80 ? 118 + wobble * 4 : s < 296 ? 548 + ((s * 7) % 30) + wobble : 586 + ((s * 3) % 14) + wobble;
  }
}

/** `nvidia-smi --query-gpu=timestamp,index,name,power.draw,power.limit --format=csv -l 10`, 06:51:08 to the cut. */
export function fvPowerLog(): string {
  const lines = ['timestamp, index, name, power.draw [W], power.limit [W]'];
  const start = Date.UTC(2026, 8, 13, 6, 51, 8, 412);
  for (let s = 0; s <= 450; s += 10) {
    const t = new Date(start + s * 1000 + (s % 7) * 3);
    const stamp = `${t.getUTCFullYear()}/${p2(t.getUTCMonth() + 1)}/${p2(t.getUTCDate())} ${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}:${p2(t.getUTCSeconds())}.${String(t.getUTCMilliseconds()).padStart(3, '0')}`;
    for (let gpu = 0; gpu < 4; gpu++) lines.push(`${stamp}, ${gpu}, ${GPU_NAME}, ${draw(gpu, s).toFixed(2)} W, 600.00 W`);
  }
  return `${lines.join('\n')}\n`;
}

function p2(n: number): string {
  return String(n).padStart(2, '0');
}

export const FV_SITE_DARK: Scenario = {
  id: 'fv-site-dark',
  seed: 'seed 002 · 2026-09-13',
  summary: 'Fountain Valley dark under two-card load: 19 of 30 aliases down, BMC and firewall unreachable, a power log to recover',
  site: 'fv',
  story: [
    '06:58 — a benchmark on fv-ml1 GPU 3 ran beside live testing on GPU 2, and every Fountain Valley address',
    'went dark, BMC and firewall included; ana and irv answer. The 1500 VA UPS is the leading suspect.',
  ],
  fleet: { aliases: {} },
  darkSites: ['fv'],
  vantages: [{ name: 'irv', darkTo: ['fv'] }],
  gpus: {},
  files: [{ name: 'power.log', what: 'power log', from: `recovered from ${POWER_LOG_ORIGIN}: nvidia-smi CSV, 4 GPUs every 10 s to the cut`, text: fvPowerLog }],
  firstSteps: (path) => [
    ['probe fv', 'what is down, measured'],
    ['runbook start site-dark', 'the runbook the probe proposes'],
    ['walk', `its steps one by one; the power log to record is ${path('power.log')}`],
  ],
};
