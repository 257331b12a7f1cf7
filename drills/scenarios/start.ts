// One scenario brought up: the drill fleet's stand-ins on ephemeral loopback ports (so two drills, or
// a drill beside the tests, never fight over a port), in a temp folder of its own that holds the
// inventory as started, the journal, the stand-in executables, the GPU answers and the scenario's files.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { DRILL_BIN, DRILL_INVENTORY, UPS_STATE } from '../drill.ts';
import { startDrillFleet } from '../litellm.ts';
import { freePort, hostPort } from '../net.ts';
import { startOobListeners } from '../oob.ts';
import { alive } from '../upsd/processes.ts';
import { findTools, toolLines } from '../tools.ts';
import { startUpsd } from '../upsd.ts';
import { overrideContainers } from './containers.ts';
import { darken, vantageView } from './dark.ts';
import type { Scenario } from './types.ts';

const DRILL_GPUS = fileURLToPath(new URL('../gpus', import.meta.url));
const DIR_PREFIX = 'seat-drill-';
/** The pid of the process whose drill a folder is, so a later drill can remove it once that one died unstopped (SIGKILL). */
const OWNER = 'owner.pid';

export interface StartOptions {
  /** Where the drill's folder is made (default: the system's temp folder). */
  tmpRoot?: string;
  /** Keep the folder (journal included) when the drill stops. */
  keep?: boolean;
  /** Whose PATH the real tools (ping, ip) are looked for on (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  /** Where nut-server's upsd and dummy-ups are (default /lib/nut). */
  nutDir?: string;
  /** false: make no network namespace even where root allows one (the stand-ins play the darkness and
   * the vantages they can, as without root). Default: a namespace wherever root and iproute2 allow. */
  namespaces?: boolean;
}

export interface RunningDrill {
  scenario: Scenario;
  /** The drill's own folder. */
  dir: string;
  /** The inventory as started (ports written in), naming `journal.sqlite` beside it. */
  inventoryPath: string;
  journalPath: string;
  fleet: Fleet;
  /** The gateway keys (LITELLM_ADMIN_KEY=…), random per drill. */
  env: Record<string, string>;
  /** For the probes: the stand-in executables first on PATH, and ping inside the dark namespace. */
  probe: { pathPrefix: string[]; pingCommand?: string[] };
  /** name → path of each scenario file. */
  files: Map<string, string>;
  /** What runs, in words, one line each. */
  standIns: string[];
  /** Every host:port a stand-in listens on. */
  listening: string[];
  /** What could not be played as in the seed, and why. */
  notes: string[];
  /** The scenario's other vantage points: `exec` runs a command from inside one (null: none could be made
   * here, `how` says why). `standIn`: no namespace could be made, but the vantage loses what the console
   * loses (the drill's dark sites), so a second process beside the console (`exec` empty) plays it, and
   * `how` says so. vantage-probe.ts runs `seat probe` from one. */
  vantages: { name: string; exec: string[] | null; standIn: boolean; how: string }[];
  /** The drill's first lines: the real tools found, those not found, and what that changes. */
  tools: string[];
  /** Idempotent: every stand-in stopped, the namespace removed, the folder removed unless kept. */
  stop(): Promise<void>;
}

export async function startScenario(s: Scenario, opts: StartOptions = {}): Promise<RunningDrill> {
  const parsed = parseInventory(await readFile(DRILL_INVENTORY, 'utf8'), DRILL_INVENTORY);
  if (!parsed.ok) throw new Error(`${DRILL_INVENTORY} is not a valid inventory: ${parsed.errors.join('; ')}`);
  const base = new Fleet(parsed.value);
  for (const site of s.darkSites) if (!base.site(site)) throw new Error(`scenario ${s.id}: no site ${site} in ${DRILL_INVENTORY}`);
  const root = opts.tmpRoot ?? tmpdir();
  sweepFolders(root);
  const dir = await mkdtemp(join(root, `${DIR_PREFIX}${s.id}-`));
  writeFileSync(join(dir, OWNER), String(process.pid));
  const stops: (() => Promise<void>)[] = [];
  const nowStops: (() => void)[] = [];
  let stopped = false;
  const removeDir = (): void => {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    else rmSync(join(dir, OWNER), { force: true }); // kept on purpose: no later drill sweeps it
  };
  // Killed (SIGTERM, an uncaught error): no waiting is possible, so what can be undone synchronously is.
  const onExit = (): void => {
    for (const f of nowStops) f();
    removeDir();
  };
  process.on('exit', onExit);
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    for (const f of stops.reverse()) await f().catch(() => {});
    process.off('exit', onExit);
    removeDir();
  };

  try {
    const bin = join(dir, 'bin');
    cpSync(DRILL_BIN, bin, { recursive: true });
    cpSync(DRILL_GPUS, join(dir, 'gpus'), { recursive: true });
    for (const [name, text] of Object.entries(s.gpus)) writeFileSync(join(dir, 'gpus', name), text);
    overrideContainers(dir, bin, s.containers);

    const darkHosts = [...base.hosts.values()].filter((h) => s.darkSites.includes(h.site));
    const darkSeats = [...base.seats.values()].filter((r) => s.darkSites.includes(r.host.site)).map((r) => r.name);
    const gw = await startDrillFleet(base, { ...s.fleet, seatsDown: [...(s.fleet.seatsDown ?? []), ...darkSeats] }, { ephemeralPorts: true, env: {} });
    stops.push(() => gw.stop());

    const inv = structuredClone(gw.fleet.inventory);
    inv.journal = 'journal.sqlite';
    const tools = findTools({ ...(opts.env ? { env: opts.env } : {}), ...(opts.nutDir ? { nutDir: opts.nutDir } : {}) });
    const notes: string[] = [];
    // No upsd to play a UPS that answers: it is left out of the drill inventory, not shown as down. A
    // dark site's UPS stays: nothing answers for it whatever is installed.
    for (const [name, site] of Object.entries(inv.sites)) {
      if (!site.ups || s.darkSites.includes(name) || !tools.nutMissing) continue;
      notes.push(`no upsd for ${site.ups.name}: ${tools.nutMissing} (apt-get install nut-server); ${name}'s UPS is left out of this drill's inventory`);
      delete site.ups;
    }
    const darkAddresses: string[] = darkHosts.map((h) => h.host.address);
    for (const [name, site] of Object.entries(inv.sites)) {
      const dark = s.darkSites.includes(name);
      for (const d of [...Object.values(site.bmc), ...(site.firewall ? [site.firewall] : [])]) {
        d.tcpPorts = await Promise.all(d.tcpPorts.map(() => freePort(d.address)));
        if (dark) darkAddresses.push(d.address);
      }
      if (site.ups) site.ups.port = await freePort(site.ups.host);
    }
    const fleet = new Fleet(inv);
    const oob = await startOobListeners(fleet, s.darkSites);
    stops.push(() => oob.stop());

    const upsds: string[] = [];
    for (const [name, site] of Object.entries(inv.sites)) {
      if (!site.ups || s.darkSites.includes(name)) continue;
      const ups = await startUpsd({ upsName: site.ups.name, host: site.ups.host, port: site.ups.port, dev: UPS_STATE[site.ups.name] ?? { 'ups.status': 'OL' }, ...(tools.nut ? { nutDir: tools.nut } : {}) });
      stops.push(() => ups.stop());
      upsds.push(`${site.ups.name}@${hostPort(ups.host, ups.port)}`);
    }

    const dark = await darken([...new Set(darkAddresses)], bin, { ping: tools.ping !== null, ...(opts.namespaces === false ? { namespace: false } : {}) });
    stops.push(() => dark.stop());
    nowStops.push(() => dark.stopNow());

    const vantages: RunningDrill['vantages'] = [];
    for (const v of s.vantages ?? []) {
      const lost = new Set<string>();
      for (const site of v.darkTo) {
        const at = inv.sites[site];
        if (!at) throw new Error(`scenario ${s.id}: vantage ${v.name}: no site ${site}`);
        for (const h of Object.values(at.hosts)) lost.add(h.address);
        for (const d of [...Object.values(at.bmc), ...(at.firewall ? [at.firewall] : [])]) lost.add(d.address);
      }
      const view = await vantageView([...lost], { namespace: opts.namespaces !== false });
      stops.push(() => view.stop());
      nowStops.push(() => view.stopNow());
      // Without a namespace, a vantage that loses exactly the console's dark sites sees what the console
      // sees: a second process beside it plays it, on the drill's own dark view. Any other cannot be played.
      const standIn = view.exec === null && sameSites(v.darkTo, s.darkSites);
      const how = view.exec
        ? `vantage ${v.name}: ${view.how}`
        : standIn
          ? `vantage ${v.name}: ${view.how}: a stand-in — a second seat process beside this console, ${v.darkTo.join(', ')} dark to it as to the console, by the same stand-ins`
          : `vantage ${v.name}: ${view.how}: not played here (a second vantage needs its own namespace)`;
      vantages.push({ name: v.name, exec: view.exec ?? (standIn ? [] : null), standIn, how });
    }

    const files = new Map<string, string>();
    for (const f of s.files) {
      const path = join(dir, f.name);
      writeFileSync(path, f.text());
      files.set(f.name, path);
    }
    const inventoryPath = join(dir, 'fleet.yaml');
    writeFileSync(inventoryPath, `# seat drill ${s.id}: the drill fleet as started, ports written in. Removed when the drill ends.\n${stringify(inv)}`);

    const seatsUp = gw.seats.size;
    const standIns = [
      `gateway ${gw.gateway.url} (LiteLLM API), ${seatsUp} of ${fleet.seats.size} seats answering`,
      `upsd ${upsds.length ? upsds.join(', ') : 'none'}; BMC and firewall ports ${oob.listening.length ? `on ${oob.listening.length} addresses` : 'none'}; nvidia-smi, xpu-smi, docker and ssh stand-ins in ${bin}`,
      ...(s.darkSites.length ? [`${s.darkSites.join(', ')} dark: ${dark.how}`] : []),
      ...vantages.map((v) => v.how),
    ];
    return {
      scenario: s,
      dir,
      inventoryPath,
      journalPath: join(dir, 'journal.sqlite'),
      fleet,
      env: gw.env,
      probe: { pathPrefix: [bin], ...(dark.pingCommand ? { pingCommand: dark.pingCommand } : {}) },
      files,
      standIns,
      listening: [new URL(gw.gateway.url).host, ...[...gw.seats.values()].map((x) => new URL(x.url).host), ...oob.listening, ...upsds.map((u) => u.split('@')[1]!)],
      notes,
      vantages,
      tools: toolLines(tools, s.darkSites),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function sameSites(a: readonly string[], b: readonly string[]): boolean {
  return a.length > 0 && a.length === b.length && a.every((x) => b.includes(x));
}

/** Folders of drills whose process was killed before it could remove them. */
function sweepFolders(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    let pid: number;
    try {
      pid = Number(readFileSync(join(root, name, OWNER), 'utf8'));
    } catch {
      continue; // being made right now, kept on purpose (SEAT_DRILL_KEEP), or not ours to judge
    }
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid)) rmSync(join(root, name), { recursive: true, force: true });
  }
}
