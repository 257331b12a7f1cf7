// A probe report's findings as metric samples: pure data, nothing of prom-client. What was not
// measured (tool_missing, key_unset, the deadline, a crash: status unknown) gives no sample at all:
// absent, never 0, so a dashboard shows a gap, not an outage.
import type { Finding, KeyResult } from '../probes/types.ts';
import { known, type LabelNames } from './labels.ts';

export type Labels = Record<string, string>;
export interface Sample {
  labels: Labels;
  value: number;
}

export interface SiteSamples {
  probeSuccess: Sample[];
  probeDuration: Sample[];
  gpuFree: Sample[];
  seatBudget: Sample[];
  upsLoad: Sample[];
  upsOnBattery: Sample[];
}

const MIB = 1024 * 1024;

export function emptySamples(): SiteSamples {
  return { probeSuccess: [], probeDuration: [], gpuFree: [], seatBudget: [], upsLoad: [], upsOnBattery: [] };
}

/** The samples of one site's findings. `site` is the report's site (a name the inventory holds). */
export function samplesOf(findings: readonly Finding[], site: string, names: LabelNames): SiteSamples {
  const out = emptySamples();
  const siteLabel = known(names.sites, site);
  if (siteLabel === null) return out;
  for (const f of findings) {
    const fSite = f.site !== undefined ? known(names.sites, f.site) : siteLabel;
    if (fSite === null) continue;
    if (f.data.kind === 'alias') {
      aliasSamples(f, fSite, names, out);
      continue;
    }
    const target = targetOf(f, names);
    if (target !== null) {
      const success = successOf(f);
      const labels = { site: fSite, target, kind: f.probe, key: keyOf(f, names) };
      if (success !== null) out.probeSuccess.push({ labels, value: success });
      if (success !== null && f.latencyMs !== null) out.probeDuration.push({ labels, value: f.latencyMs / 1000 });
    }
    if (f.data.kind === 'gpu') gpuSamples(f.data.gpu, names, out);
    if (f.data.kind === 'ups') {
      const ups = known(names.ups, f.data.ups.ups);
      if (ups === null) continue;
      const labels = { site: fSite, ups };
      if (f.data.ups.loadPct !== null && f.status !== 'unknown') out.upsLoad.push({ labels, value: f.data.ups.loadPct / 100 });
      const st = f.data.ups.status;
      if (f.status !== 'unknown' && (st.includes('OB') || st.includes('OL'))) out.upsOnBattery.push({ labels, value: st.includes('OB') ? 1 : 0 });
    }
  }
  return out;
}

/** 1 up, 0 down or degraded, null when not measured. */
function successOf(f: Finding): number | null {
  if (f.status === 'unknown' || f.provenance.kind === 'inferred') return null;
  return f.status === 'up' ? 1 : 0;
}

/** One sample per key the alias is meant for and was exercised with; an unset key, a paid alias not
 * exercised, or a listing that failed for that key are not measurements of the alias. */
function aliasSamples(f: Finding, site: string, names: LabelNames, out: SiteSamples): void {
  if (f.subject.kind !== 'alias' || !f.subject.inInventory) return;
  const target = known(names.aliases, f.subject.name);
  if (target === null || f.data.kind !== 'alias') return;
  for (const k of f.data.keys) {
    const key = known(names.keys, k.key);
    const value = keySuccess(k);
    if (key === null || value === null) continue;
    const labels = { site, target, kind: 'alias', key };
    out.probeSuccess.push({ labels, value });
    if (k.request) out.probeDuration.push({ labels, value: k.request.latencyMs / 1000 });
  }
}

function keySuccess(k: KeyResult): number | null {
  if (!k.intended) return null;
  switch (k.outcome) {
    case 'ok':
      return 1;
    case 'failed':
    case 'not-registered':
      return 0;
    default:
      return null; // unset, listed-only (not exercised), listing-failed (the gateway's, not the alias's)
  }
}

function gpuSamples(g: { host: string; index: number; freeMiB: number | null; seats: { seat: string; declaredMiB: number | null }[] }, names: LabelNames, out: SiteSamples): void {
  const host = known(names.hosts, g.host);
  if (host === null) return;
  const gpu = String(g.index);
  if (g.freeMiB !== null) out.gpuFree.push({ labels: { host, gpu }, value: g.freeMiB * MIB });
  for (const s of g.seats) {
    const seat = known(names.seats, s.seat);
    if (seat !== null && s.declaredMiB !== null) out.seatBudget.push({ labels: { seat, host, gpu }, value: s.declaredMiB * MIB });
  }
}

function keyOf(f: Finding, names: LabelNames): string {
  return f.subject.kind === 'gateway' ? (known(names.keys, f.subject.key) ?? '') : '';
}

/** The target label: a name the inventory holds, or null (left out). */
function targetOf(f: Finding, names: LabelNames): string | null {
  const s = f.subject;
  switch (s.kind) {
    case 'gateway':
      return known(names.keys, s.key) === null ? null : 'gateway';
    case 'seat':
      return known(names.seats, s.name);
    case 'gpu': {
      const host = known(names.hosts, s.host);
      return host === null ? null : `${host}/gpu${s.index}`;
    }
    case 'gpu-host':
      return known(names.hosts, s.host);
    case 'ups':
      return known(names.ups, s.ups);
    case 'address':
      if (s.role === 'firewall') return 'firewall';
      if (s.role === 'control') return s.name.endsWith(' firewall') ? 'firewall' : known(names.addresses, s.name);
      return known(names.addresses, s.name);
    case 'container':
      return known(names.seats, s.seat);
    default:
      return null;
  }
}
