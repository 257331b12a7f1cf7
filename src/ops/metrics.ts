// /metrics: what the last probe of each site measured, exposed with prom-client. A scrape reads what
// is kept here; it never starts a probe. blackbox_exporter's names where they fit (probe_success,
// probe_duration_seconds), seatbelt's own for the rest. prom-client 15 writes no sample timestamps,
// so each site's last probe time is a sample of its own (seat_probe_timestamp_seconds).
import { Counter, Gauge, Registry } from 'prom-client';
import type { ProbeReport } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { labelNames, known, type LabelNames } from './labels.ts';
import { samplesOf, type Sample, type SiteSamples } from './samples.ts';

/** What the journal says, read at scrape time; null when the bot keeps no journal (the samples are absent). */
export type JournalFigures = () => { openIncidents: number; decisions: number } | null | Promise<{ openIncidents: number; decisions: number } | null>;

interface Kept {
  samples: SiteSamples;
  finishedAt: number; // seconds since the epoch
  durationS: number;
}

export interface SeatMetrics {
  readonly registry: Registry;
  /** Keeps a finished probe's figures: per site, replacing that site's last ones. */
  record(report: ProbeReport): void;
  /** The exposition text, as a scrape gets it. */
  text(): Promise<string>;
  readonly contentType: string;
}

export function createSeatMetrics(fleet: Fleet, journal: JournalFigures = () => null): SeatMetrics {
  const names: LabelNames = labelNames(fleet);
  const kept = new Map<string, Kept>();
  const registry = new Registry();
  const all = (pick: (s: SiteSamples) => Sample[]): Sample[] => [...kept.values()].flatMap((k) => pick(k.samples));
  const gauge = (name: string, help: string, labelNames: string[], pick: (s: SiteSamples) => Sample[]): void => {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of all(pick)) this.set(s.labels, s.value);
      },
    });
  };
  gauge('probe_success', 'Whether the target answered as it should at the last probe (1) or not (0); absent when not measured', ['site', 'target', 'kind', 'key'], (s) => s.probeSuccess);
  gauge('probe_duration_seconds', 'How long the target took to answer at the last probe', ['site', 'target', 'kind', 'key'], (s) => s.probeDuration);
  gauge('seat_gpu_free_bytes', 'Free GPU memory at the last probe', ['host', 'gpu'], (s) => s.gpuFree);
  gauge('seat_seat_budget_bytes', 'GPU memory a seat is told it may take (its declared budget)', ['seat', 'host', 'gpu'], (s) => s.seatBudget);
  gauge('seat_ups_load_ratio', 'UPS load as a ratio of its capacity (0..1) at the last probe', ['site', 'ups'], (s) => s.upsLoad);
  gauge('seat_ups_on_battery', 'Whether the UPS was on battery (1) or on line (0) at the last probe', ['site', 'ups'], (s) => s.upsOnBattery);
  new Gauge({
    name: 'seat_probe_timestamp_seconds',
    help: 'When the last probe of the site finished (seconds since the epoch): the figures above are from then',
    labelNames: ['site'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [site, k] of kept) this.set({ site }, k.finishedAt);
    },
  });
  new Gauge({
    name: 'seat_probe_run_seconds',
    help: 'How long the last probe of the site took, all its targets together',
    labelNames: ['site'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [site, k] of kept) this.set({ site }, k.durationS);
    },
  });
  // Without a journal these two are absent, not 0 (a labelless metric would show 0): they are
  // registered only while the journal answers.
  const openIncidents = new Gauge({ name: 'seat_open_incidents', help: 'Incidents open in the journal', registers: [] });
  const decisions = new Counter({ name: 'seat_decisions_total', help: 'Step decisions (done, skipped, blocked) recorded in the journal', registers: [] });
  const journalSamples = async (): Promise<void> => {
    let j: Awaited<ReturnType<JournalFigures>>;
    try {
      j = await journal();
    } catch {
      j = null;
    }
    for (const name of ['seat_open_incidents', 'seat_decisions_total']) if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
    if (!j) return;
    openIncidents.set(j.openIncidents);
    decisions.reset();
    decisions.inc(j.decisions);
    registry.registerMetric(openIncidents);
    registry.registerMetric(decisions);
  };
  return {
    registry,
    contentType: registry.contentType,
    record(report) {
      // A report of `all` holds every site's findings: each site keeps its own.
      const sites = report.site === 'all' ? report.sites : [report.site];
      const finishedAt = Date.parse(report.finishedAt) / 1000;
      for (const site of sites) {
        if (known(names.sites, site) === null) continue;
        const findings = report.site === 'all' ? report.findings.filter((f) => f.site === undefined || f.site === site) : report.findings;
        kept.set(site, { samples: samplesOf(findings, site, names), finishedAt: Number.isFinite(finishedAt) ? finishedAt : 0, durationS: report.durationMs / 1000 });
      }
    },
    text: async () => {
      await journalSamples();
      return registry.metrics();
    },
  };
}
