// Alertmanager's webhook body (version 4), checked before anything is done with it: every field the
// bot reads, its type and its size. A peer's strings stay data: capped here, control characters
// stripped before Slack or the journal sees them (clean()).
import { z } from 'zod';

/** The most a webhook body may be (bytes); Alertmanager sends far less for a group of alerts. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Alerts in one notification that are read; Alertmanager's max_alerts keeps a group smaller. */
export const MAX_ALERTS = 1000;
const MAX_TEXT = 4096;

const text = (max = MAX_TEXT) => z.string().max(max, `longer than ${max} characters`);
const labelSet = z.record(z.string().max(256, 'a label name longer than 256 characters'), text()).refine((r) => Object.keys(r).length <= 128, 'more than 128 labels');
const time = z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'not a time (RFC 3339, like 2026-12-07T04:00:00Z)');

export const AlertSchema = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: labelSet,
  annotations: labelSet.default({}),
  startsAt: time,
  /** 0001-01-01T00:00:00Z while firing with no end known. */
  endsAt: time,
  generatorURL: text().optional(),
  fingerprint: z.string().regex(/^[0-9a-f]{1,64}$/, 'expected hex digits'),
});

export const WebhookSchema = z.object({
  version: z.literal('4', { error: 'expected "4" (Alertmanager\'s webhook version)' }),
  groupKey: text(1024).min(1, 'empty'),
  truncatedAlerts: z.number().int().min(0).default(0),
  status: z.enum(['firing', 'resolved']),
  receiver: text(256).default(''),
  groupLabels: labelSet.default({}),
  commonLabels: labelSet.default({}),
  commonAnnotations: labelSet.default({}),
  externalURL: text().default(''),
  alerts: z.array(AlertSchema).min(1, 'no alerts').max(MAX_ALERTS, `more than ${MAX_ALERTS} alerts`),
});

export type Webhook = z.output<typeof WebhookSchema>;
export type Alert = z.output<typeof AlertSchema>;

export type ParseResult = { ok: true; value: Webhook } | { ok: false; error: string };

/** The body as JSON, then as a version-4 payload; the error names the fields that are wrong (at most 5). */
export function parseWebhook(body: string): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, error: 'the body is not JSON' };
  }
  const r = WebhookSchema.safeParse(json);
  if (r.success) return { ok: true, value: r.data };
  const issues = r.error.issues.slice(0, 5).map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : 'the body'}: ${clean(i.message, 200)}`);
  const more = r.error.issues.length > 5 ? ` (and ${r.error.issues.length - 5} more)` : '';
  return { ok: false, error: `not an Alertmanager version-4 payload: ${issues.join('; ')}${more}` };
}

/** A peer's string for a person: control characters out (newlines too), capped. */
export function clean(s: string, max = 300): string {
  const one = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** Alertmanager's zero time: an alert still firing has no end. */
export function ended(alert: Pick<Alert, 'status' | 'endsAt'>, now: Date): boolean {
  if (alert.status === 'resolved') return true;
  const t = Date.parse(alert.endsAt);
  return t > 0 && t <= now.getTime();
}
