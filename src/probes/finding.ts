// The one way a probe makes a Finding: facts first, and the display text that renders them.
import type { Finding, FindingData, FindingStatus, InferredWhy, Measurement, ProbeName, Provenance, Reason, Subject } from './types.ts';

export interface FindingInput {
  probe: ProbeName;
  target: string;
  subject: Subject;
  status: FindingStatus;
  /** Required unless status is up (checked at run time: a missing reason is a bug, reported as such). */
  reason?: Reason | undefined;
  detail: string;
  provenance: Provenance;
  latencyMs: number | null;
  site?: string | undefined;
  host?: string | undefined;
  data: FindingData;
}

/** Stamps the finding with the clock and renders its provenance as `measuredBy`. Frozen: what the
 * report's order, its JSON draft and the memory take from a finding as it comes in stay true of it. */
export function makeFinding(clock: () => Date, f: FindingInput): Finding {
  const reason = f.status === 'up' ? undefined : (f.reason ?? 'probe_crashed');
  return Object.freeze({
    probe: f.probe,
    target: f.target,
    status: f.status,
    ...(reason ? { reason } : {}),
    subject: f.subject,
    detail: f.detail,
    measuredBy: renderProvenance(f.provenance),
    provenance: f.provenance,
    observedAt: clock().toISOString(),
    latencyMs: f.latencyMs,
    ...(f.site !== undefined ? { site: f.site } : {}),
    ...(f.host !== undefined ? { host: f.host } : {}),
    data: f.data,
  });
}

export function measured(...via: Measurement[]): Provenance {
  return { kind: 'measured', via };
}

export function inferred(why: InferredWhy, ...from: Subject[]): Provenance {
  return { kind: 'inferred', from, why };
}

const WHY_TEXT: Record<InferredWhy, string> = {
  key_unset: 'no gateway key is set',
  deadline: 'deadline',
  not_started: 'deadline (not started)',
  stopped: 'stopped',
  probe_crashed: 'probe error',
  listing: 'the gateway listing',
};

/** `GET url (admin key)`, `nvidia-smi --query-gpu=…`, `NUT LIST VAR ups @host:port`, or `inferred: …`. */
export function renderProvenance(p: Provenance): string {
  if (p.kind === 'inferred') return `inferred: ${WHY_TEXT[p.why]}`;
  const out: string[] = [];
  // One line per distinct request, naming every key that sent it.
  const http = new Map<string, string[]>();
  for (const m of p.via) {
    if (m.how === 'http') {
      const line = `${m.method} ${m.url}${m.body ? ` ${m.body}` : ''}`;
      if (!http.has(line)) {
        http.set(line, []);
        out.push(line);
      }
      if (m.key) http.get(line)!.push(m.key);
    } else if (m.how === 'exec' || m.how === 'icmp') out.push(commandLine(m.argv));
    else if (m.how === 'nut') out.push(`NUT ${m.command} ${m.ups} @${hostPort(m.host, m.port)}`);
    else out.push(`tcp connect ${hostPort(m.host, m.port)}`);
  }
  return out.map((line) => (http.get(line)?.length ? `${line} (${keyList(http.get(line)!)})` : line)).join('; ');
}

export function keyList(keys: string[]): string {
  return `${keys.join(', ')} key${keys.length === 1 ? '' : 's'}`;
}

export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The argv as a person would retype it: plain words bare, anything else single-quoted. */
export function commandLine(argv: string[]): string {
  return argv.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
