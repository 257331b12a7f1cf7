// The incident flow through the real Bolt app: signed slash commands, button clicks and modal
// submissions over HTTP, its Web API calls to the recording Slack stand-in, its probes to the drill
// fleet's stand-ins, its journal a real SQLite file in a temp folder, the real runbooks and guardrails.
// `runSiteDarkWalkthrough` walks runbook site-dark to the end as two on-call people would.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRILL_BIN, DRILL_INVENTORY } from '../../drills/drill.ts';
import { startDrillFleet, type DrillFleet } from '../../drills/litellm.ts';
import { project, type IncidentView } from '../../src/incident/engine.ts';
import type { JournalEvent } from '../../src/incident/types.ts';
import { openSqliteCore } from '../../src/journal/sqlite.ts';
import type { SyncJournalStore } from '../../src/journal/store.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from './slack.ts';

export const SECRET = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
export const ANA = { id: 'U0ONCALL01', name: 'ana' };
export const BEN = { id: 'U0ONCALL02', name: 'ben' };
export const VISITOR = { id: 'U0VISITOR9', name: 'visitor' };
export const CHANNEL = 'C0INCIDENT';

export interface Person {
  id: string;
  name: string;
}

let seq = 0;
const unique = (): string => `${Date.now()}.${process.pid}.${++seq}`;

/** A block_actions payload for one button of one message, as Slack sends it. */
export function buttonBody(p: { actionId: string; value: string; ts: string; user?: Person; channel?: string; responseUrl: string; triggerId?: string; actionTs?: string }): string {
  const user = p.user ?? ANA;
  const payload = {
    type: 'block_actions',
    user: { id: user.id, username: user.name, name: user.name, team_id: 'T0DRILL' },
    api_app_id: 'A0SEATBELT',
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: p.ts, channel_id: p.channel ?? CHANNEL, is_ephemeral: false },
    trigger_id: p.triggerId ?? unique(),
    team: { id: 'T0DRILL', domain: 'drill' },
    channel: { id: p.channel ?? CHANNEL, name: 'incident' },
    message: { type: 'message', ts: p.ts, text: 'step', user: 'U0SEATBOT', bot_id: 'B0SEATBOT' },
    response_url: p.responseUrl,
    actions: [{ action_id: p.actionId, block_id: 'b1', text: { type: 'plain_text', text: 'button' }, value: p.value, type: 'button', action_ts: p.actionTs ?? unique() }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** A view_submission payload for a modal the app opened (its callback_id and private_metadata). */
export function submissionBody(p: { view: { callback_id: string; private_metadata: string }; values: Record<string, Record<string, unknown>>; user?: Person; viewId?: string }): string {
  const user = p.user ?? ANA;
  const payload = {
    type: 'view_submission',
    team: { id: 'T0DRILL', domain: 'drill' },
    user: { id: user.id, username: user.name, name: user.name, team_id: 'T0DRILL' },
    api_app_id: 'A0SEATBELT',
    token: 'deprecated-verification-token',
    trigger_id: unique(),
    view: {
      id: p.viewId ?? `V${unique().replace(/\D/g, '')}`,
      team_id: 'T0DRILL',
      type: 'modal',
      callback_id: p.view.callback_id,
      private_metadata: p.view.private_metadata,
      state: { values: p.values },
      hash: unique(),
      title: { type: 'plain_text', text: 'seatbelt' },
      blocks: [],
      close: null,
      submit: null,
      root_view_id: null,
      previous_view_id: null,
      clear_on_close: false,
      notify_on_close: false,
      app_id: 'A0SEATBELT',
      bot_id: 'B0SEATBOT',
    },
    response_urls: [],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** Modal field values as Slack sends them. */
export const typed = (value: string) => ({ v: { type: 'plain_text_input', value } });
export const chosen = (value: string) => ({ v: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: value }, value } } });
export const radio = (value: string) => ({ v: { type: 'radio_buttons', selected_option: { text: { type: 'plain_text', text: value }, value } } });
export const uploaded = (id: string, name: string) => ({ v: { type: 'file_input', files: [{ id, name }] } });

/** A loopback file host for the bot to download uploads from (with the bot token, as Slack asks). */
export interface FileHost {
  url: string;
  /** Authorization headers the downloads came with. */
  auth: string[];
  add(id: string, bytes: Buffer): string;
  close(): Promise<void>;
}

export async function startFileHost(): Promise<FileHost> {
  const files = new Map<string, Buffer>();
  const auth: string[] = [];
  const server: Server = createServer((req, res) => {
    auth.push(String(req.headers.authorization ?? ''));
    const body = files.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!body || req.headers.authorization !== 'Bearer xoxb-test-0000000000') {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    auth,
    add: (id, bytes) => {
      files.set(`/files-pri/T0DRILL-${id}/download`, bytes);
      return `${url}/files-pri/T0DRILL-${id}/download`;
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export interface Harness {
  slack: SlackApiStandIn;
  seat: SeatApp;
  drill: DrillFleet;
  files: FileHost;
  journal: string;
  /** The app's /slack/events URL. */
  events: string;
  logs: string[];
  /** Every wait the app asked for (Slack's Retry-After), recorded, not slept. */
  sleeps: number[];
  /** A signed `/seat <text>`; the ack's body parsed when it has one. */
  command(text: string, user?: Person): Promise<{ status: number; body: Record<string, unknown> | null }>;
  /** A signed click on a button of a message the app posted. */
  click(button: Button, user?: Person, o?: { triggerId?: string; actionTs?: string; responseUrl?: string }): Promise<number>;
  /** A signed modal submission; the ack's body (Slack's errors) parsed when it has one. */
  submit(view: OpenedView, values: Record<string, Record<string, unknown>>, user?: Person, viewId?: string): Promise<Record<string, unknown> | null>;
  /** Every Web API call with its answer, in order. */
  log: Exchange[];
  /** Every message posted, by ts, as it is now. */
  messages(): Map<string, Shown>;
  /** The messages posted in a thread, in order, as they are now. */
  thread(ts: string): (Shown & { ts: string })[];
  /** Buttons of a message as it is now. */
  buttons(ts: string): Button[];
  /** The last modal opened. */
  lastView(): OpenedView;
  /** Where the private replies stand now, for `said(since)`. */
  mark(): Mark;
  /** What was said privately to people (response_url replies, then chat.postEphemeral), since `from`. */
  said(from?: Mark): string[];
  /** The incident's events as the journal file holds them now (read by a reader of its own). */
  journalEvents(incident: number): JournalEvent[];
  /** Every replica's app and its /slack/events URL (one unless asked for more). */
  seats: SeatApp[];
  urls: string[];
  /** Sends what follows to replica i. */
  on(i: number): void;
  /** The incident as the journal file holds it now. */
  viewNow(incident: number): IncidentView;
  stop(): Promise<void>;
}

export interface Mark {
  responses: number;
  calls: number;
}

export interface Button {
  ts: string;
  actionId: string;
  value: string;
  text: string;
}

export interface OpenedView {
  callback_id: string;
  private_metadata: string;
  blocks: { block_id?: string; type: string }[];
}

/**
 * `replicas`: that many bot processes' apps on the one journal (each its own store, its own
 * /slack/events), sharing the Slack stand-in; `on(i)` sends what follows to replica i. `journal`: a
 * journal spec (a postgres:// URL) instead of the temporary SQLite file.
 */
export async function startIncidentHarness(o: { now?: () => number; replicas?: number; journal?: string } = {}): Promise<Harness> {
  const slack = await startSlackApi();
  const proxy = await startAnswerLog(slack.url);
  const files = await startFileHost();
  const r = parseInventory(await readFile(DRILL_INVENTORY, 'utf8'));
  if (!r.ok) throw new Error(r.errors.join('\n'));
  const drill = await startDrillFleet(new Fleet(r.value), undefined, { ephemeralPorts: true, env: {} });
  const inv = structuredClone(drill.fleet.inventory);
  inv.settings.probeTimeoutMs = 1500;
  inv.settings.deadlineMs = 4000;
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-slack-incident-'));
  const journal = o.journal ?? join(dir, 'journal.sqlite');
  // The tests read the journal file as a second process would: synchronously, beside the bot's own store.
  let read: SyncJournalStore | undefined;
  const reader = (): SyncJournalStore => (read ??= openSqliteCore(journal));
  const logs: string[] = [];
  const sleeps: number[] = [];
  const log = (...m: unknown[]): void => void logs.push(m.join(' '));
  const make = (n: number): SeatApp => createSeatApp({
    fleet: new Fleet(inv),
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: proxy.url },
    probeDeps: { env: { ...drill.env, PATH: process.env.PATH ?? '' }, pathPrefix: [DRILL_BIN] },
    logger: { debug: log, info: log, warn: log, error: log, setLevel: () => {}, getLevel: () => 'info' as never, setName: () => {} },
    sleep: async (ms) => void sleeps.push(ms),
    journal,
    tokenVerification: false,
    replica: `bot-${n}:${process.pid}`,
    ...(o.now ? { now: o.now } : {}),
  });
  const seats: SeatApp[] = [];
  const urls: string[] = [];
  for (let n = 0; n < (o.replicas ?? 1); n++) {
    const app = make(n);
    seats.push(app);
    urls.push(`http://127.0.0.1:${await app.start()}/slack/events`);
  }
  const seat = seats[0]!;
  let current = 0;
  const target = (): string => urls[current]!;
  const idle = async (): Promise<void> => void (await Promise.all(seats.map((x) => x.idle())));
  const events = urls[0]!;
  let responses = 0;
  const responseUrl = (): string => `${slack.base}/response/${++responses}`;

  const h: Harness = {
    slack,
    seat,
    drill,
    files,
    journal,
    events,
    logs,
    sleeps,
    command: async (text, user = ANA) => {
      const body = slashCommandBody({ text, user: user.id, responseUrl: responseUrl() }).replace('user_name=oncall', `user_name=${encodeURIComponent(user.name)}`);
      const res = await signedPost(target(), body, { secret: SECRET });
      await idle();
      return { status: res.status, body: res.text ? (JSON.parse(res.text) as Record<string, unknown>) : null };
    },
    click: async (button, user = ANA, c = {}) => {
      const res = await signedPost(target(), buttonBody({ actionId: button.actionId, value: button.value, ts: button.ts, user, responseUrl: c.responseUrl ?? responseUrl(), ...(c.triggerId ? { triggerId: c.triggerId } : {}), ...(c.actionTs ? { actionTs: c.actionTs } : {}) }), { secret: SECRET });
      await idle();
      return res.status;
    },
    submit: async (view, values, user = ANA, viewId) => {
      const res = await signedPost(target(), submissionBody({ view, values, user, ...(viewId ? { viewId } : {}) }), { secret: SECRET });
      await idle();
      return res.text ? (JSON.parse(res.text) as Record<string, unknown>) : null;
    },
    log: proxy.log,
    messages: () => currentMessages(proxy.log),
    thread: (ts) => [...currentMessages(proxy.log)].filter(([, m]) => m.thread === ts).map(([t, m]) => ({ ts: t, ...m })),
    buttons: (ts) => {
      const m = currentMessages(proxy.log).get(ts);
      const out: Button[] = [];
      for (const b of (m?.blocks ?? []) as { type: string; elements?: { type: string; action_id: string; value: string; text: { text: string } }[] }[]) {
        if (b.type !== 'actions') continue;
        for (const e of b.elements ?? []) if (e.type === 'button') out.push({ ts, actionId: e.action_id, value: e.value, text: e.text.text });
      }
      return out;
    },
    lastView: () => {
      const open = slack.calls.filter((c) => c.method === 'views.open').at(-1);
      if (!open) throw new Error('no modal was opened');
      return open.args.view as OpenedView;
    },
    mark: () => ({ responses: slack.responses.length, calls: slack.calls.length }),
    said: (from = { responses: 0, calls: 0 }) => {
      const eph = slack.calls.slice(from.calls).filter((c) => c.method === 'chat.postEphemeral').map((c) => String(c.args.text));
      return [...slack.responses.slice(from.responses).map((r) => String(r.body.text)), ...eph];
    },
    journalEvents: (incident) => reader().events(incident),
    viewNow: (incident) => project(reader().incident(incident)!, reader().events(incident)),
    seats,
    urls,
    on: (i) => {
      if (!seats[i]) throw new Error(`no replica ${i}`);
      current = i;
    },
    stop: async () => {
      await idle();
      read?.close();
      for (const x of seats) await x.stop();
      await drill.stop();
      await files.close();
      await proxy.close();
      await slack.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** One Web API call as the app made it and as the stand-in answered it, in order. */
export interface Exchange {
  method: string;
  args: Record<string, unknown>;
  answer: Record<string, unknown>;
}

/**
 * A recording proxy in front of the Slack stand-in: the stand-in records what the app asked, this
 * records what it was answered too (a posted message's ts), so a test can find a message by ts.
 */
export async function startAnswerLog(target: string): Promise<{ url: string; log: Exchange[]; close(): Promise<void> }> {
  const log: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const method = (req.url ?? '').replace(/^\/api\//, '');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
      void fetch(`${target}${method}`, { method: req.method ?? 'POST', headers, body: raw }).then(async (r) => {
        const text = await r.text();
        let answer: Record<string, unknown> = {};
        try {
          answer = JSON.parse(text) as Record<string, unknown>;
        } catch {
          answer = {};
        }
        log.push({ method, args: formArgs(raw, String(req.headers['content-type'] ?? '')), answer });
        const out: Record<string, string> = { 'content-type': r.headers.get('content-type') ?? 'application/json' };
        const retry = r.headers.get('retry-after');
        if (retry) out['retry-after'] = retry;
        res.writeHead(r.status, out);
        res.end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    log,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function formArgs(raw: string, type: string): Record<string, unknown> {
  if (type.includes('application/json')) return JSON.parse(raw || '{}') as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    try {
      out[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
    } catch {
      out[k] = v;
    }
  }
  return out;
}

export interface Shown {
  channel: string;
  thread?: string;
  text: string;
  blocks: unknown[];
  /** How many times it was updated in place. */
  updates: number;
}

/** Every message as it stands now: posted (its ts from the answer), then replaced by each chat.update, gone once deleted. */
export function currentMessages(log: readonly Exchange[]): Map<string, Shown> {
  const out = new Map<string, Shown>();
  for (const c of log) {
    if (c.answer.ok !== true) continue;
    if (c.method === 'chat.postMessage' && typeof c.answer.ts === 'string') {
      out.set(c.answer.ts, { channel: String(c.args.channel), ...(c.args.thread_ts ? { thread: String(c.args.thread_ts) } : {}), text: String(c.args.text), blocks: (c.args.blocks as unknown[]) ?? [], updates: 0 });
    } else if (c.method === 'chat.update') {
      const m = out.get(String(c.args.ts));
      if (m) out.set(String(c.args.ts), { ...m, text: String(c.args.text), blocks: (c.args.blocks as unknown[]) ?? [], updates: m.updates + 1 });
    } else if (c.method === 'chat.delete') {
      out.delete(String(c.args.ts));
    }
  }
  return out;
}

/** The sha256 of bytes, as the journal records a measured file. */
export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

// ---------------------------------------------------------------------------------------------
// A whole runbook, walked in Slack

/** The bytes of the power log the walkthrough uploads (recorded as measured: size and sha256). */
export const POWER_LOG = Buffer.from(
  [
    'timestamp, index, power.draw [W]',
    '2026/09/13 06:55:54.100, 0, 301.10 W',
    '2026/09/13 06:55:54.101, 1, 298.20 W',
    '2026/09/13 06:56:04.100, 0, 303.40 W',
    '2026/09/13 06:56:04.101, 1, 297.30 W',
    '2026/09/13 06:56:14.100, 0, 30',
  ].join('\n'),
);

/** What the walkthrough enters for the move of each step, by its action (the modal's fields). */
export const WALK_INPUTS: Record<string, Record<string, Record<string, unknown>>> = {
  'power-sizing': {},
  'power-plan': { in_bank: chosen('battery'), in_loadW: typed('800') },
  'alias-route': { in_alias: typed('gen-paid'), in_backend: typed('openrouter') },
  'container-change': { in_method: chosen('recreate') },
  'seat-up': { in_seat: typed('gen') },
  'seat-move': { in_seat: typed('gen'), in_host: typed('fv-ml1'), in_gpu: typed('0'), in_wantMiB: typed('1000') },
  'seat-resize': { in_seat: typed('gen'), in_host: typed('fv-ml1'), in_gpu: typed('0'), in_wantMiB: typed('1000') },
  'env-edit': { in_backup: typed('.env.bak-walk-20260913-071500') },
};

export interface Walked {
  incident: number;
  /** The parent message's ts: the thread every step went to. */
  thread: string;
  /** Each step as it was decided, in order, and who pressed Done. */
  steps: { id: string; by: string }[];
  events: JournalEvent[];
}

/**
 * Opens an incident at `site`, starts runbook site-dark, and presses Done on every step in turn,
 * ana and ben taking turns, answering each modal (the power log uploaded as a file, `yes` to a
 * question, the move's inputs from WALK_INPUTS); then closes the incident.
 */
export async function runSiteDarkWalkthrough(h: Harness, o: { site?: string; title?: string; runbook?: string } = {}): Promise<Walked> {
  const site = o.site ?? 'fv';
  const runbook = o.runbook ?? 'site-dark';
  const service = h.seat.incidents;
  if (!service) throw new Error('the app has no journal');
  await h.command(`incident open ${site} ${o.title ?? 'FV dark: UPS tripped under two loaded cards'}`);
  const incident = await service.deps.store.newestOpen();
  if (!incident) throw new Error('no incident was opened');
  await h.command(`runbook start ${runbook} ${incident.id}`, BEN);
  const thread = (await service.deps.store.incident(incident.id))?.slack?.thread;
  if (!thread) throw new Error('the incident has no thread');
  const fileUrl = h.files.add('F0POWERLOG', POWER_LOG);
  h.slack.answer('files.info', { ok: true, file: { id: 'F0POWERLOG', name: 'power.log', size: POWER_LOG.length, mimetype: 'text/plain', url_private_download: fileUrl } });
  const steps: Walked['steps'] = [];
  for (let turn = 0; turn < 40; turn++) {
    const view = (await service.view(incident.id))!;
    const cur = view.steps.find((s) => s.state.state === 'pending' || s.state.state === 'blocked');
    if (!cur) break;
    const message = h.thread(thread).filter((m) => h.buttons(m.ts).some((b) => b.actionId === 'seat_step_done' && JSON.parse(b.value).step === cur.spec.id)).at(-1);
    if (!message) throw new Error(`no message with buttons for step ${cur.spec.id}`);
    const done = h.buttons(message.ts).find((b) => b.actionId === 'seat_step_done')!;
    const who = turn % 2 === 0 ? ANA : BEN;
    const opened = h.slack.calls.filter((c) => c.method === 'views.open').length;
    await h.click(done, who);
    if (h.slack.calls.filter((c) => c.method === 'views.open').length > opened) {
      const modal = h.lastView();
      const values: Record<string, Record<string, unknown>> = { ...(cur.spec.action ? (WALK_INPUTS[cur.spec.action] ?? {}) : {}) };
      const ids = new Set(modal.blocks.map((b) => b.block_id));
      if (ids.has('ev_file')) values.ev_file = uploaded('F0POWERLOG', 'power.log');
      if (ids.has('ev_yesno')) values.ev_yesno = radio('yes');
      if (ids.has('ev_value')) values.ev_value = typed('3');
      const errors = await h.submit(modal, values, who);
      if (errors) throw new Error(`step ${cur.spec.id}: the modal was refused: ${JSON.stringify(errors)}`);
    }
    const after = (await service.view(incident.id))!.steps.find((s) => s.spec.id === cur.spec.id)!;
    if (after.state.state !== 'done') throw new Error(`step ${cur.spec.id} is ${after.state.state} after Done: ${JSON.stringify(after.state)}; said: ${h.said().slice(-3).join(' | ')}`);
    steps.push({ id: cur.spec.id, by: who.id });
  }
  await h.command(`incident close ${incident.id} walked through in Slack`);
  return { incident: incident.id, thread, steps, events: await service.deps.store.events(incident.id) };
}
