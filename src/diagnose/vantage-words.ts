// The verdict's words on vantage points and out-of-band paths, drawn from facts. Display only: the
// rules (site-dark, unreachable-from) decided.
import type { Summary } from './facts.ts';
import type { Proposal } from './rules/index.ts';

/** `(from one vantage point: hq)`, `(from 2 vantage points: hq, irv)`; empty when no finding names its vantage. */
export function darkFromWords(sites: readonly string[], f: Summary): string {
  const from = f.vantages.sites.length === 0 ? f.vantages.names : [...new Set(f.vantages.sites.filter((s) => sites.includes(s.site)).flatMap((s) => s.witnesses))];
  if (from.length === 0) return '';
  return from.length === 1 ? ` (from one vantage point: ${from[0]})` : ` (from ${from.length} vantage points: ${from.join(', ')})`;
}

/** `fv unreachable from hq only (irv reaches it): check hq's own path (its firewall, its uplink)`. */
export function unreachableFromLine(p: Proposal, f: Summary): string {
  const parts = f.vantages.sites
    .filter((s) => p.sites.includes(s.site))
    .map((s) => `${s.site} unreachable from ${and(s.darkFrom)} only (${and(s.reachedFrom)} ${s.reachedFrom.length === 1 ? 'reaches' : 'reach'} it)`);
  const failing = [...new Set(f.vantages.sites.filter((s) => p.sites.includes(s.site)).flatMap((s) => s.darkFrom))];
  const own = failing.map((v) => `${v}'s`).join(' and ');
  return `${parts.join('; ')}: check ${own} own path (${failing.length === 1 ? 'its' : 'their'} firewall, ${failing.length === 1 ? 'its' : 'their'} uplink) — not a dark site, no runbook for it`;
}

/** Under a site-dark verdict: why the BMC is dark too, and whether a separate path reaches the site out of band. */
export function outOfBandLines(p: Proposal, f: Summary): string[] {
  if (p.rule !== 'site-dark') return [];
  const out: string[] = [];
  for (const site of p.sites) {
    const facts = f.sites.find((s) => s.site === site);
    const oob = f.oob.find((o) => o.site === site);
    if (!facts || !oob) continue;
    const bmcs = oob.viaFirewall.filter((d) => !f.ups.some((u) => u.site === site && u.ups === d));
    if (facts.bmcDown && oob.bmcViaFirewall) {
      out.push(
        `${site}: the BMC is dark too — ${and(bmcs)} ${bmcs.length === 1 ? 'rides' : 'ride'} the site's own firewall (via: firewall), which went with the site: power the firewall and BMC from the UPS, or give the BMC a separate path`,
      );
    }
    for (const path of oob.paths) {
      if (path.answeredFrom.length > 0) out.push(`${site} is reachable out of band: ${path.device}'s separate path ${path.path} answers (from ${and(path.answeredFrom)})`);
      else if (path.status === 'unknown') out.push(`${site}: ${path.device}'s separate path ${path.path} was not measured`);
      else out.push(`${site}: ${path.device}'s separate path ${path.path} does not answer either`);
    }
  }
  return out;
}

function and(xs: readonly string[]): string {
  return xs.length <= 2 ? xs.join(' and ') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}
