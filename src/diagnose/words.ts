// The verdict's words, drawn from facts. Display only: every decision was taken by a rule.
import { fmtInt } from '../probes/edge/text.ts';
import type { Reason } from '../probes/types.ts';
import type { FallbackFacts, Route, Summary, UpsFacts } from './facts.ts';
import type { Proposal } from './rules/index.ts';
import { darkFromWords, unreachableFromLine } from './vantage-words.ts';

/** The rule's own conclusion, when it is one a person must read first. */
export function conclusionLine(p: Proposal, f: Summary): string | null {
  switch (p.rule) {
    case 'site-dark': {
      const dark = f.sites.filter((s) => p.sites.includes(s.site));
      const bmc = dark.every((s) => s.bmcDown) ? ' (BMC included)' : '';
      const others = f.sites.some((s) => !p.sites.includes(s.site) && (s.state === 'up' || s.state === 'partial'));
      const ups = dark.some((s) => s.hasUps) ? '; an overload-tripped UPS needs a human' : '';
      const unmeasured = dark.reduce((n, s) => n + s.unmeasured, 0);
      const every = unmeasured > 0 ? `every measured address${bmc} failed (${unmeasured} not measured)` : `every address${bmc} failed`;
      const answering = others ? ' while other sites answer' : f.gateway.answered ? ' while the gateway answers' : '';
      return `site ${p.sites.join(', ')} dark: ${every}${answering}${darkFromWords(p.sites, f)} — do not poll it waiting${ups}`;
    }
    case 'unreachable-from':
      return unreachableFromLine(p, f);
    case 'no-network':
      return 'nothing answered — no site (the other sites’ control checks included), not the gateway, no seat: check this machine’s own network first';
    case 'keys-rejected':
      return `the gateway answers but rejects every key probed: check ${f.gateway.rejectedVars.join(', ')} before blaming the gateway`;
    case 'gateway-down': {
      const why = f.gateway.keys.find((k) => k.status === 'down')?.reason;
      return `gateway down for every key probed (fleet-wide, every site)${why ? `: ${REASON_WORDS[why] ?? why}` : ''}`;
    }
    case 'seat-unreachable': {
      const seats = f.containers.unreachable.map((c) => `${c.seat} (${c.container}@${c.host}): ${c.reason === 'not_published' ? 'no port published for it' : 'its port is bound but does not answer'}`);
      return `${seats.join('; ')} — ${f.containers.unreachable.every((c) => c.health === 'healthy') ? 'healthy inside its container, ' : ''}unreachable outside: check the port binding, not the healthcheck`;
    }
    default:
      return null;
  }
}

/** The probed sites' own faults: their aliases, addresses, UPS, GPUs and seats. */
export function ownLines(scope: string[], f: Summary): string[] {
  const lines: string[] = [];
  const mine = (r: Route): boolean => r.site === null || scope.includes(r.site);
  const gw = f.gateway;
  if (gw.listingFailed && f.aliases.down > 0) {
    lines.push(`${f.aliases.down} of ${f.aliases.total} aliases down, all cut off at the gateway${gw.rejected ? ' by rejected keys' : ''}`);
    const silent = f.seats.down.length;
    if (silent > 0) lines.push(`${silent} of ${f.seats.total} backend seats probed directly do not answer either: not only the gateway is down`);
    else if (f.seats.total > 0) lines.push(`all ${f.seats.total} backend seats probed directly answer: the fault is the gateway's`);
  } else {
    const down = f.aliases.downByRoute.filter(mine);
    const degraded = f.aliases.degradedByRoute.filter(mine);
    if (down.length + degraded.length > 0) lines.push(blastRadius(f.aliases.total, down, degraded));
    for (const a of f.aliases.failing.filter((x) => x.site === null || scope.includes(x.site))) {
      if (a.reason === 'backend_failing') lines.push(`${a.alias}: backend ${a.seats.join(', ')} passes its health check but fails requests — healthy is not serving`);
    }
  }
  for (const s of f.sites.filter((x) => x.inScope && x.state === 'partial')) {
    lines.push(`site ${s.site}: ${s.down.map((d) => `${ROLE[d.role] ?? d.role} ${d.name}`).join(', ')} ${s.down.length === 1 ? 'does' : 'do'} not answer while the rest of the site does`);
  }
  for (const u of f.ups.filter((x) => scope.includes(x.site) && x.status !== 'up')) lines.push(upsLine(u));
  for (const g of f.gpus.underFloor.filter((x) => x.site === null || scope.includes(x.site))) {
    lines.push(`${g.host} GPU${g.index}: ${fmtInt(g.freeMiB)} MiB free, under the ${fmtInt(g.floorMiB)} MiB floor — a seat there can OOM or fall back to slow kernels`);
  }
  for (const e of f.gpus.enginesNotRunning.filter((x) => x.site === null || scope.includes(x.site))) {
    lines.push(`${e.seat} on ${e.host} GPU${e.index}: a budget is declared but no process holds memory there — ${e.seatProbed ? 'its engine is not running' : 'its engine is not running on that card (its own /health was not probed in this run: another GPU is not ruled out)'}`);
  }
  for (const e of f.gpus.answeringElsewhere.filter((x) => x.site === null || scope.includes(x.site))) {
    lines.push(`${e.seat} answers but no process holds memory on GPU${e.index}: check which GPU it really uses (CUDA_VISIBLE_DEVICES, the inventory's index)`);
  }
  for (const g of f.gpus.noFigures.filter((x) => x.site === null || scope.includes(x.site))) {
    lines.push(
      `${g.host} GPU${g.index}: memory not reported, so its process list says nothing of ${g.seats.join(', ')} — unknown; a seat there that accepts and never answers may be a wedged engine: nvidia-smi -q, Xid in dmesg, the container's logs`,
    );
  }
  for (const r of f.gpus.noRoom.filter((x) => x.site === null || scope.includes(x.site))) {
    lines.push(`${r.seat} is down and its declared ${fmtInt(r.declaredMiB)} MiB cannot fit the ${fmtInt(r.freeMiB)} MiB free on ${r.host} GPU${r.index}: it cannot boot there now (its log says why)`);
  }
  for (const c of f.containers.restarting.filter((x) => x.site === null || scope.includes(x.site))) {
    lines.push(`${c.container}@${c.host} (seat ${c.seat}): ${c.restartCount === null ? 'being restarted' : `RestartCount ${fmtInt(c.restartCount)}`} — it keeps crashing and being restarted`);
  }
  const seatsDown = f.seats.down.filter((s) => s.site === null || scope.includes(s.site));
  if (!gw.listingFailed && seatsDown.length > 0 && f.aliases.downByRoute.length === 0) {
    lines.push(`${seatsDown.length} backend seat${seatsDown.length === 1 ? '' : 's'} down: ${seatsDown.map((s) => `${s.seat}@${s.host}`).join(', ')}`);
  }
  return lines;
}

/** What holds fleet-wide: fallbacks and keys that were not measured. */
export function fleetLines(f: Summary): string[] {
  const lines: string[] = [];
  if (!f.gateway.listingFailed) for (const fb of f.fallback) lines.push(fallbackLine(fb));
  if (f.gateway.unsetVars.length > 0) lines.push(`not measured with ${f.gateway.unsetVars.join(', ')}: not set in this environment`);
  return lines;
}

/** Other sites' outages seen through the gateway: said, after the probed site's own. */
export function elsewhereLines(scope: string[], f: Summary): string[] {
  if (f.gateway.listingFailed) return [];
  const other = f.aliases.downByRoute.filter((r) => r.site !== null && !scope.includes(r.site));
  if (other.length === 0) return [];
  const n = other.reduce((a, r) => a + r.aliases.length, 0);
  return [`elsewhere: ${n} alias${n === 1 ? '' : 'es'} down routed to ${other.map((r) => `${r.route} (site ${r.site})`).join(', ')}`];
}

function blastRadius(total: number, down: Route[], degraded: Route[]): string {
  const n = down.reduce((a, r) => a + r.aliases.length, 0);
  const d = degraded.reduce((a, r) => a + r.aliases.length, 0);
  const where = down.length === 1 ? `, all routed to ${down[0]!.route}` : down.length > 1 ? ` (${down.map((r) => `${r.route}: ${r.aliases.length}`).join(', ')})` : '';
  const deg = d > 0 ? `${n > 0 ? '; ' : ''}${d} degraded` : '';
  return n > 0 ? `${n} of ${total} aliases down${where}${deg}` : `${d} of ${total} aliases degraded`;
}

function fallbackLine(fb: FallbackFacts): string {
  if (fb.localUp.length > 0) return `local ${fb.kind} fallback remains: ${fb.localUp.join(', ')}`;
  const paid = fb.paid.length > 0 ? `; the rest are paid (${fb.paid.join(', ')}) — paid coverage only under a new opt-in alias, never a repoint` : '';
  return `no local ${fb.kind} fallback: every free ${fb.kind} alias is on ${fb.downOn.join(', ')}${paid}`;
}

function upsLine(u: UpsFacts): string {
  const flags = u.flags.length > 0 ? ` (${u.flags.join(' ')})` : '';
  const load =
    u.loadW !== null && u.ratedW !== null ? `, ${fmtInt(u.loadW)} W of the ${fmtInt(u.ratedW)} W rating` : u.loadPct !== null ? `, load ${fmtInt(u.loadPct)} %` : '';
  return `UPS ${u.ups} at ${u.site}: ${u.reason ? (REASON_WORDS[u.reason] ?? u.reason) : u.status}${flags}${load}`;
}

const ROLE: Record<string, string> = { bmc: 'BMC', firewall: 'firewall', host: 'host', control: 'control address', ups: 'UPS' };

/** Short words for reason codes in verdict lines. */
export const REASON_WORDS: Partial<Record<Reason, string>> = {
  timeout: 'no answer in time',
  refused: 'connection refused',
  unreachable: 'unreachable',
  reset: 'connection reset',
  dns: 'name does not resolve',
  http_status: 'answers with an error status',
  redirect: 'redirects elsewhere',
  too_large: 'answer over the size cap',
  bad_answer: 'not the expected answer',
  on_battery: 'on battery — mains power is lost',
  low_battery: 'battery low — about to cut its outputs',
  overload: 'overloaded — shed load before it trips',
  ups_flag: 'flagged by the UPS',
  ups_stale: 'upsd lost the UPS (stale data)',
  ups_unknown: 'upsd does not know this UPS',
  access_denied: 'upsd refused access',
  no_status: 'no status from upsd',
};
