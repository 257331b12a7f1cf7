// Inventory load: loadInventory() (read, the YAML fast road, zod, cross-references) and the Fleet's
// lookups, on generated inventories of 1,000 and 10,000 aliases (seats on 100 hosts at 5 sites), beside
// js-yaml alone reading the same text: the parse floor. In-process, modules warm; the file in the page
// cache. Linear means the per-alias cost at 10,000 is the one at 1,000. Beside both, `yaml`'s
// parseDocument (every node with its position: the precise road, src/inventory/yaml.ts) on the same
// text: why the fast road reads with js-yaml, and why both parsers stay.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { LineCounter, parseDocument } from 'yaml';
import { Fleet } from '../src/inventory/fleet.ts';
import { loadInventory } from '../src/inventory/load.ts';
import { median, spread } from './probe-fleet.ts';

const RUNS = 5;
const SIZES = [1000, 10_000];

/** Sites with hosts, one seat per host GPU, and `n` aliases routed to those seats (a tenth to a backend). */
export function bigInventory(n: number): string {
  const lines = ['fleet: big', 'gateway: { baseUrl: http://127.0.0.1:4000, keys: { admin: { env: SEAT_BIG_ADMIN }, shared: { env: SEAT_BIG_SHARED } } }', 'sites:'];
  const seats: string[] = [];
  for (let s = 0; s < 5; s++) {
    lines.push(`  s${s}:`, '    hosts:');
    for (let h = 0; h < 20; h++) lines.push(`      s${s}-h${h}: { address: 127.0.${s}.${h + 1}, ssh: local, gpus: [{ index: 0 }, { index: 1 }] }`);
  }
  lines.push('seats:');
  for (let s = 0; s < 5; s++) {
    for (let h = 0; h < 20; h++) {
      for (let g = 0; g < 2; g++) {
        const name = `seat-s${s}-h${h}-g${g}`;
        seats.push(name);
        lines.push(`  ${name}: { host: s${s}-h${h}, gpus: [${g}], port: ${8000 + g}, gpuMemoryUtilization: 0.4 }`);
      }
    }
  }
  lines.push('aliases:');
  for (let i = 0; i < n; i++) {
    const name = `alias-${String(i).padStart(5, '0')}`;
    lines.push(i % 10 === 9 ? `  ${name}: { kind: chat, backend: { name: outside, paid: true }, optIn: true }` : `  ${name}: { kind: ${i % 3 === 0 ? 'embedding' : 'chat'}, seats: [${seats[i % seats.length]}] }`);
  }
  return `${lines.join('\n')}\n`;
}

export async function benchInventoryLoad(): Promise<{ lines: string[]; perAliasRatio: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-inv-'));
  try {
    const rows: { n: number; bytes: number; ours: number[]; floor: number[]; precise: number[] }[] = [];
    for (const n of SIZES) {
      const text = bigInventory(n);
      const path = join(dir, `inv-${n}.yaml`);
      await writeFile(path, text);
      const first = await loadInventory(path);
      if (!first.ok) throw new Error(`bench inventory does not load: ${first.errors.slice(0, 3).join('; ')}`);
      const ours: number[] = [];
      const floor: number[] = [];
      const precise: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const f0 = performance.now();
        jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
        floor.push(performance.now() - f0);
        const p0 = performance.now();
        parseDocument(text, { lineCounter: new LineCounter() });
        precise.push(performance.now() - p0);
        const t0 = performance.now();
        const loaded = await loadInventory(path);
        if (!loaded.ok) throw new Error('bench inventory stopped loading');
        const fleet = new Fleet(loaded.value);
        if (fleet.aliases.size !== n) throw new Error(`expected ${n} aliases, got ${fleet.aliases.size}`);
        ours.push(performance.now() - t0);
      }
      rows.push({ n, bytes: Buffer.byteLength(text), ours, floor, precise });
    }
    const per = rows.map((r) => (median(r.ours) / r.n) * 1000);
    const perAliasRatio = (per[1] ?? NaN) / (per[0] ?? NaN);
    return {
      perAliasRatio,
      lines: [
        `inventory: loadInventory() + new Fleet() in-process (modules warm, file in the page cache; the CLI's start-up is not on this clock); min / median / max over ${RUNS} runs`,
        ...rows.map(
          (r, i) =>
            `inventory: ${r.n.toLocaleString('en-US').padStart(6)} aliases (${(r.bytes / 1048576).toFixed(2)} MiB)  ${spread(r.ours, 1, ' ms').padStart(26)}  = ${per[i]!.toFixed(1)} µs/alias; js-yaml alone (floor) ${spread(r.floor, 1, ' ms')} → ${(median(r.ours) / median(r.floor)).toFixed(2)}x the floor; yaml parseDocument alone (the precise road) ${spread(r.precise, 1, ' ms')} = ${(median(r.precise) / median(r.floor)).toFixed(1)}x js-yaml`,
        ),
        `inventory: per-alias cost at ${SIZES[1]!.toLocaleString('en-US')} vs ${SIZES[0]!.toLocaleString('en-US')}: ${perAliasRatio.toFixed(2)}x (linear: ~1.0x); ${SIZES[1]!.toLocaleString('en-US')} aliases in ${median(rows[1]!.ours).toFixed(0)} ms (target: well under 1,000 ms: ${median(rows[1]!.ours) < 1000 ? 'met' : 'NOT met'})`,
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
