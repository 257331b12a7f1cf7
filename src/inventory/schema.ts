// The fleet inventory: one YAML file, validated here. Secrets never sit in it: a gateway key is
// named by the environment variable that holds it.
import { isIP } from 'node:net';
import { z } from 'zod';

/** The rule every name of the inventory follows; the loader quotes it when a name breaks it. */
export const NAME_RULE = 'lower-case letters, digits, ".", "_" or "-", starting with a letter or digit, at most 63 characters';
const name = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, `expected a name of ${NAME_RULE}`);

/**
 * An IPv4 dotted quad (each part 0-255), an IPv6 literal (node:net's isIP), or a host name of RFC 1123
 * labels (1-63 letters, digits and "-", not starting or ending with "-"; at most 253 in all). All digits
 * and dots is an IPv4 or nothing: 999.999.999.999 is refused, not looked up as a name.
 */
export function isAddress(v: string): boolean {
  if (isIP(v) !== 0) return true;
  if (/^[0-9.]+$/.test(v)) return false;
  if (v.length > 253 || v.includes(':')) return false;
  return v.split('.').every((label) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label));
}

/** An IPv4/IPv6 literal or a host name; no spaces, no shell metacharacters. */
export const address = z.string().refine(isAddress, 'expected an IP address or host name');

export const port = z
  .number({ error: (iss) => `expected a number 1-65535, got ${JSON.stringify(iss.input)}` })
  .int({ error: (iss) => `expected a number 1-65535, got ${JSON.stringify(iss.input)}` })
  .min(1, { error: (iss) => `expected a number 1-65535, got ${JSON.stringify(iss.input)}` })
  .max(65535, { error: (iss) => `expected a number 1-65535, got ${JSON.stringify(iss.input)}` });

/** `local` runs on this machine; anything else is an ssh destination (`user@host` or `host`). */
const sshTarget = z
  .string()
  .regex(/^(?:local|(?:[a-z_][a-z0-9_-]{0,31}@)?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$/, 'expected "local" or an ssh destination like user@host');

/** A secret pasted where its variable's name belongs: long, or shaped like a key (sk-…, hex, base64). */
export function looksLikeKeyValue(v: unknown): boolean {
  return typeof v === 'string' && (v.length >= 24 || /^(?:sk|pk|rk|key|token|bearer)[-_]/i.test(v) || (/[a-z]/.test(v) && /[0-9]/.test(v) && v.length >= 12));
}

const envVarName = z.string().regex(/^[A-Z_][A-Z0-9_]{0,127}$/, {
  error: (iss) =>
    looksLikeKeyValue(iss.input)
      ? 'looks like a key value, not a variable name: put the key in an environment variable and name the variable here (env: LITELLM_ADMIN_KEY)'
      : 'expected an environment variable name like LITELLM_ADMIN_KEY',
});

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
  .check((ctx) => {
    // zod runs this check even when its own URL check failed (http://999.999.999.999): that is told once, not thrown.
    if (!URL.canParse(ctx.value)) return;
    const u = new URL(ctx.value);
    // WHATWG URL takes 999.999.999.999 as a host name; a probe would fail on it. Brackets off an IPv6.
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!isAddress(host)) ctx.issues.push({ code: 'custom', input: ctx.value, message: `has a host that is not an IP address or host name (${host})` });
    // The keys come from the environment; a password here would be printed by every report and `seat check`.
    if (u.username || u.password) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'has a user or password in it (user:pass@): take it out; the gateway keys come from environment variables' });
    if (u.search || u.hash) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'has a query or fragment in it: a base URL is scheme, host, port and path only' });
  })
  .transform((u) => u.replace(/\/+$/, ''));

export const GpuSchema = z.strictObject({
  index: z.number().int().min(0),
  uuid: z.string().optional(),
});

export const HostSchema = z.strictObject({
  address,
  ssh: sshTarget.default('local'),
  gpuVendor: z.enum(['nvidia', 'intel', 'none']).default('nvidia'),
  gpus: z.array(GpuSchema).default([]),
});

export const OobDeviceSchema = z.strictObject({
  address,
  tcpPorts: z.array(port).default([]),
});

/** A BMC's or UPS's own way out when the site's firewall is gone (an LTE router): probed from every vantage. */
export const OobPathSchema = z.strictObject({
  /** What it is, for the report ("lte-router"); absent: its address. */
  name: name.optional(),
  address,
  tcpPorts: z.array(port).default([]),
});

/**
 * How an out-of-band device is reached: `firewall` (through the site's own firewall: the default where
 * the site has one) or `separate` (its own path, named in `path`). Seed 002: the BMC rode the firewall
 * the site's loss took down, so the one tool for "the box is down" was dark too.
 */
const oobVia = {
  via: z.enum(['firewall', 'separate']).optional(),
  path: OobPathSchema.optional(),
};

function viaIssues(d: { via?: 'firewall' | 'separate' | undefined; path?: unknown }): { code: 'custom'; input: unknown; message: string; path: string[] }[] {
  if (d.via === 'separate' && d.path === undefined) {
    return [{ code: 'custom', input: d, message: 'via: separate needs the path to probe: path: { address: ADDRESS } (the LTE router or other way out)', path: ['path'] }];
  }
  if (d.via !== 'separate' && d.path !== undefined) {
    return [{ code: 'custom', input: d.path, message: 'a path is read only with via: separate: add via: separate, or leave the path out', path: ['path'] }];
  }
  return [];
}

export const BmcSchema = OobDeviceSchema.extend(oobVia).check((ctx) => {
    for (const i of viaIssues(ctx.value)) ctx.issues.push(i);
  });

export const UpsSchema = z
  .strictObject({
    host: address,
    port: port.default(3493),
    name,
    ratedVA: z.number().positive().optional(),
    ratedW: z.number().positive().optional(),
    ...oobVia,
  })
  .check((ctx) => {
    for (const i of viaIssues(ctx.value)) ctx.issues.push(i);
  });

export const SiteSchema = z
  .strictObject({
    description: z.string().optional(),
    hosts: z.record(name, HostSchema),
    ups: UpsSchema.optional(),
    bmc: z.record(name, BmcSchema).default({}),
    firewall: OobDeviceSchema.optional(),
  })
  .check((ctx) => {
    const s = ctx.value;
    if (s.firewall) return;
    // Through a firewall the site does not name: nothing could say so in a report.
    if (s.ups?.via === 'firewall') ctx.issues.push({ code: 'custom', input: s.ups.via, message: 'via: firewall, but this site names no firewall: add the firewall, or say via: separate with its path', path: ['ups', 'via'] });
    for (const [n, b] of Object.entries(s.bmc)) {
      if (b.via === 'firewall') ctx.issues.push({ code: 'custom', input: b.via, message: 'via: firewall, but this site names no firewall: add the firewall, or say via: separate with its path', path: ['bmc', n, 'via'] });
    }
  });

export const SeatSchema = z
  .strictObject({
    host: name,
    gpus: z.array(z.number().int().min(0)).min(1),
    port,
    /** Not read yet (the container probe comes later): optional until then. */
    container: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'expected a container name').optional(),
    /** How the seat is run: a docker container (`container`), or a systemd unit (NixOS) read with `systemctl show`. */
    runtime: z.enum(['docker', 'systemd']).default('docker'),
    /** A systemd seat's unit; absent: `<seat name>.service`. */
    unit: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,254}$/, 'expected a systemd unit name like vllm-chat.service')
      .optional(),
    engine: z.enum(['vllm', 'other']).default('vllm'),
    /** vLLM's --gpu-memory-utilization: a fraction of the card's total memory. */
    gpuMemoryUtilization: z.number().gt(0).lte(1).optional(),
    /** vLLM's --kv-cache-memory-bytes: skips profiling, ignores the utilization. */
    kvCacheMemoryBytes: z.number().int().positive().optional(),
    maxModelLen: z.number().int().positive().optional(),
    /** Substring of nvidia-smi's process_name that identifies this seat's process on a shared card. */
    process: z.string().optional(),
  })
  .check((ctx) => {
    const s = ctx.value;
    if (s.runtime === 'systemd' && s.container !== undefined) {
      ctx.issues.push({ code: 'custom', input: s.container, message: 'a systemd seat has no container: name its unit instead (unit: NAME.service), or say runtime: docker', path: ['container'] });
    }
    if (s.runtime === 'docker' && s.unit !== undefined) {
      ctx.issues.push({ code: 'custom', input: s.unit, message: 'a unit is read only for runtime: systemd: add runtime: systemd, or name the container instead', path: ['unit'] });
    }
  });

export const BackendSchema = z.strictObject({
  name,
  paid: z.boolean(),
});

export const AliasSchema = z
  .strictObject({
    kind: z.enum(['chat', 'embedding']),
    seats: z.array(name).default([]),
    backend: BackendSchema.optional(),
    /** A paid alias must be opt-in: callers choose it by name, nothing falls back to it. */
    optIn: z.boolean().default(false),
    /** The gateway keys (names from gateway.keys) this alias is meant for; absent: every key. */
    keys: z.array(name).min(1, 'name at least one key, or leave keys out (every key)').optional(),
  })
  .check((ctx) => {
    const a = ctx.value;
    if (a.seats.length === 0 && !a.backend) {
      ctx.issues.push({ code: 'custom', input: a, message: 'an alias needs seats or a backend', path: [] });
    }
    if (a.backend?.paid && !a.optIn) {
      ctx.issues.push({ code: 'custom', input: a.optIn, message: 'a paid backend must be optIn: true (no silent paid coverage)', path: ['optIn'] });
    }
  });

export const GatewaySchema = z.strictObject({
  baseUrl: httpUrl,
  keys: z.record(name, z.strictObject({ env: envVarName })).refine((k) => Object.keys(k).length > 0, 'name at least one key'),
});

export const SettingsSchema = z.strictObject({
  /** Free memory under this on a GPU is flagged (seed 000: 1,979 MiB fell back to slow kernels; 4,466 was clean). */
  marginFloorMiB: z.number().int().min(0).default(4096),
  probeTimeoutMs: z.number().int().min(50).max(120_000).default(3000),
  deadlineMs: z.number().int().min(100).max(600_000).default(10_000),
  concurrency: z.number().int().min(1).max(512).default(128),
  upsLoadWarnPct: z.number().min(1).max(100).default(80),
  /** The operations listener's host:port (SEAT_HTTP_LISTEN wins); absent: 127.0.0.1:9464. */
  httpListen: z.string().max(80).optional(),
  /** `every 5m` (s, m or h; at least 30s): `seat bot` probes quietly and posts only a change of verdict. Absent: off. */
  schedule: z
    .string()
    .regex(/^(?:off|every [1-9][0-9]{0,4}(?:s|m|h))$/, 'expected "every 5m" (a number and s, m or h), or off')
    .optional(),
});

/** Alertmanager's webhook: which alert labels name what in this inventory, and where an alert is posted. */
export const AlertsSchema = z.strictObject({
  /** The channel alerts are posted in; absent: the first of oncall.channels. */
  channel: z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'expected a Slack channel ID like C012ABCDEF').optional(),
  /** The label names that carry each field (Prometheus's `instance` is a host, or host:port). */
  labels: z
    .strictObject({
      site: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,127}$/, 'expected a label name').default('site'),
      host: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,127}$/, 'expected a label name').default('instance'),
      alias: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,127}$/, 'expected a label name').default('alias'),
      gpu: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,127}$/, 'expected a label name').default('gpu'),
    })
    .default({ site: 'site', host: 'instance', alias: 'alias', gpu: 'gpu' }),
});

export const IncidentsSchema = z.strictObject({
  /** An Alertmanager alert opens an incident (its first event: the alert, so time to detect counts from startsAt). */
  autoOpen: z.boolean().default(false),
});

export const OnCallSchema = z.strictObject({
  users: z.array(z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'expected a Slack user ID like U012ABCDEF')).default([]),
  userGroup: z.string().regex(/^S[A-Z0-9]{2,}$/, 'expected a Slack user group ID like S012ABCDEF').optional(),
  channels: z.array(z.string().regex(/^[CGD][A-Z0-9]{2,}$/, 'expected a Slack channel ID like C012ABCDEF')).default([]),
});

export const InventorySchema = z.strictObject({
  fleet: z.string().default('fleet'),
  /** A fleet of stand-ins (the drill): every report it gives is marked DRILL, so none is taken for the real fleet. */
  drill: z.boolean().default(false),
  /** Where this replica measures from (SEAT_VANTAGE wins; absent: the host name): each finding names it. */
  vantage: name.optional(),
  /** The incident journal's SQLite file (SEAT_JOURNAL wins); relative to the inventory's folder. */
  journal: z.string().min(1).max(4096).optional(),
  settings: SettingsSchema.default(SettingsSchema.parse({})),
  oncall: OnCallSchema.default(OnCallSchema.parse({})),
  gateway: GatewaySchema,
  sites: z.record(name, SiteSchema).refine((s) => Object.keys(s).length > 0, 'name at least one site'),
  seats: z.record(name, SeatSchema).default({}),
  aliases: z.record(name, AliasSchema).default({}),
  /** Optional (absent: labels site, instance, alias, gpu; the first on-call channel): see src/ops/alert-map.ts. */
  alerts: AlertsSchema.optional(),
  incidents: IncidentsSchema.optional(),
});

export type Inventory = z.output<typeof InventorySchema>;
export type Site = z.output<typeof SiteSchema>;
export type Host = z.output<typeof HostSchema>;
export type Seat = z.output<typeof SeatSchema>;
export type Alias = z.output<typeof AliasSchema>;
export type Ups = z.output<typeof UpsSchema>;
export type OobDevice = z.output<typeof OobDeviceSchema>;
export type Bmc = z.output<typeof BmcSchema>;
export type OobPath = z.output<typeof OobPathSchema>;
export type Settings = z.output<typeof SettingsSchema>;
export type AlertsSettings = z.output<typeof AlertsSchema>;
