// The gateway alias probe: what each key can see, the smallest real request per alias and key, and
// each backend seat asked directly, so "gateway fine, backend down" and "gateway down" read apart.
import type { Fleet, SeatRef } from '../../inventory/fleet.ts';
import { makeFinding, type FindingInput } from '../finding.ts';
import { makeRedactor, redactStrings } from '../edge/text.ts';
import { openWhenAllSettled } from '../edge/gate.ts';
import { graceFor, withTimeout } from '../edge/timeout.ts';
import type { Finding, ProbeEnv, ProbeScope, ProbeTask } from '../types.ts';
import { aliasFinding, extrasFindings, keyFinding, seatFinding, type Make } from './findings.ts';
import type { Key, Listing, SeatCheck } from './checks.ts';
import { Gateway, timeoutOutcome } from './litellm.ts';
import { shared } from './shared.ts';

/** Fields whose values are codes, never free text: redaction must not touch them. */
const ENUM_FIELDS = new Set(['probe', 'status', 'reason', 'kind', 'how', 'method', 'why', 'code', 'outcome', 'aliasKind', 'attribution', 'observedAt', 'role']);

export function planGatewayTasks(fleet: Fleet, scope: ProbeScope, env: ProbeEnv): ProbeTask[] {
  const base = fleet.inventory.gateway.baseUrl;
  const keys: Key[] = Object.entries(fleet.inventory.gateway.keys).map(([name, k]) => ({ name, envVar: k.env, secret: env.env[k.env] || undefined }));
  const secrets = keys.flatMap((k) => (k.secret ? [k.secret] : []));
  // Every request below runs under a signal timed at env.timeoutMs: a shared measurement's own, or an alias task's.
  const gw = new Gateway(base, env, secrets, (id) => fleet.aliases.has(id), true);
  const timeoutMs = env.timeoutMs + graceFor(env.timeoutMs);
  // The last line of defence: no string in a finding carries a key's value.
  const redactor = makeRedactor(secrets);
  const redacted = (f: FindingInput): FindingInput => (secrets.length > 0 ? redactStrings(f, redactor, ENUM_FIELDS) : f);
  const mk: Make = (f: FindingInput): Finding => makeFinding(env.clock, redacted(f));
  /** For a finding worded later: observed when the measuring ended, not when it is worded. */
  const mkAt =
    (at: Date): Make =>
    (f) =>
      makeFinding(() => at, redacted(f));

  // One listing per key and one check per seat for the whole run, shared by every task that needs it.
  // The run's programs (ping, ssh, …) wait for every key's listing, which each alias waits on (edge/gate.ts).
  const listed = openWhenAllSettled(env.programGate, keys.map((k) => k.name));
  const listings = new Map(keys.map((k) => [k.name, shared((signal) => gw.list(k, signal).finally(() => listed(k.name)), env.timeoutMs)]));
  const seatChecks = new Map([...fleet.seats.values()].map((s) => [s.name, shared((signal) => gw.checkSeat(s, signal), env.timeoutMs)]));
  const listing = (k: Key, signal: AbortSignal): Promise<Listing> =>
    listings.get(k.name)!(signal).then((l) => l ?? { state: 'failed', key: k, outcome: timeoutOutcome(env.timeoutMs) });
  const seatCheck = (s: SeatRef, signal: AbortSignal): Promise<SeatCheck> =>
    seatChecks.get(s.name)!(signal).then((c) => c ?? { seat: s, health: timeoutOutcome(env.timeoutMs) });

  const keyTasks: ProbeTask[] = keys.map((k) => ({
    id: `gateway:${k.name}`,
    group: 'aliases',
    probe: 'gateway',
    target: `gateway (${k.name} key)`,
    subject: { kind: 'gateway', key: k.name },
    timeoutMs,
    run: async (signal) => [keyFinding(mk, base, await listing(k, signal), env.timeoutMs)],
    onTimeout: (ms) => [keyFinding(mk, base, { state: 'failed', key: k, outcome: timeoutOutcome(ms) }, ms)],
  }));

  const aliasTasks: ProbeTask[] = [...fleet.aliases.values()].map((a) => {
    /** Under a signal that ends by env.timeoutMs: the runner's (waitMs below), or run's own. */
    const measure = async (signal: AbortSignal): Promise<() => Finding[]> => {
      const seats = Promise.all(a.seats.map((s) => seatCheck(s, signal)));
      const outcomes = await Promise.all(keys.map(async (k) => gw.exercise(a, await listing(k, signal), env.paid, signal)));
      const checks = await seats;
      const at = env.clock();
      return () => [aliasFinding(mkAt(at), base, a, outcomes, checks, env.timeoutMs)];
    };
    return {
      id: `alias:${a.name}`,
      group: 'aliases',
      probe: 'alias',
      target: a.name,
      subject: { kind: 'alias', name: a.name, inInventory: true },
      timeoutMs,
      waitMs: env.timeoutMs,
      measure,
      // Called outside the runner (which keeps waitMs itself), it times itself.
      run: async (outer) => {
        const { signal, clear } = withTimeout(outer, env.timeoutMs);
        try {
          return (await measure(signal))();
        } finally {
          clear();
        }
      },
      onTimeout: (ms) => [
        aliasFinding(mk, base, a, keys.map((k) => ({ kind: 'failed' as const, key: k, outcome: timeoutOutcome(ms) })), [], ms),
      ],
    };
  });

  // Aliases a key lists that the inventory does not know: only known after the listings answer.
  const extrasTask: ProbeTask = {
    id: 'gateway:outside-inventory',
    group: 'aliases',
    probe: 'gateway',
    target: 'gateway (aliases outside the inventory)',
    subject: { kind: 'alias', name: '(outside the inventory)', inInventory: false },
    timeoutMs,
    run: async (signal) => extrasFindings(mk, base, await Promise.all(keys.map((k) => listing(k, signal))), (m) => fleet.aliases.has(m), keys.map((k) => k.name)),
    // The key tasks already report a listing that did not answer; nothing to add here.
    onTimeout: () => [],
  };

  const seatTasks: ProbeTask[] = scope.sites.flatMap((site) =>
    fleet.seatsAt(site).map((s): ProbeTask => ({
      id: `seat:${s.name}`,
      group: 'aliases',
      probe: 'seat',
      target: `${s.name}@${s.host.name}`,
      subject: { kind: 'seat', name: s.name, host: s.host.name },
      site,
      host: s.host.name,
      timeoutMs,
      run: async (signal) => [seatFinding(mk, await seatCheck(s, signal), env.timeoutMs)],
      onTimeout: (ms) => [seatFinding(mk, { seat: s, health: timeoutOutcome(ms) }, ms)],
    })),
  );

  return [...keyTasks, ...aliasTasks, extrasTask, ...seatTasks];
}

