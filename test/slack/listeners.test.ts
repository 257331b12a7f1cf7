// Each listener as a plain function, called with fakes for what Bolt hands it: what it acks, what
// it tells the person, and whether it starts any work. (The probe itself runs in app.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger, RespondArguments, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { SeatContext, WebClient } from '../../src/slack/context.ts';
import { probeAgain, type ProbeAgainArgs } from '../../src/slack/listeners/actions/probe-again.ts';
import { seatCommand } from '../../src/slack/listeners/commands/seat.ts';
import { probeQueue } from '../../src/slack/probe-queue.ts';
import { replayGuard } from '../../src/slack/replay.ts';
import { exampleFleet } from '../helpers/findings.ts';
import { ThreadMessages } from '../../src/slack/thread-messages.ts';

const fleet = await exampleFleet();

function fakes() {
  const logged: string[] = [];
  const log = (...m: unknown[]): void => void logged.push(m.join(' '));
  const logger: Logger = { debug: log, info: log, warn: log, error: log, setLevel() {}, getLevel: () => 'info' as never, setName() {} };
  const tracked: Promise<void>[] = [];
  const acks: unknown[] = [];
  const said: RespondArguments[] = [];
  const ctx: SeatContext = {
    fleet,
    log: logger,
    probeDeps: undefined,
    runProbe: () => Promise.reject(new Error('no probe starts in these fakes')),
    probes: probeQueue(),
    probing: new Map(),
    updateIntervalMs: 1000,
    sleep: async () => {},
    replays: replayGuard(),
    busyMessages: new Set(),
    track: (p) => void tracked.push(p),
    groupMembers: async () => [],
    incidents: { missing: 'no journal in these fakes' },
    send: { run: (_channel, _what, call) => call() },
    fetchFile: async () => new Response('', { status: 404 }),
    threads: new ThreadMessages(),
  };
  const client = {} as WebClient; // never reached on these paths: no probe starts
  return {
    ctx,
    client,
    logged,
    tracked,
    acks,
    said,
    ack: async (r?: unknown) => void acks.push(r),
    respond: async (m: string | RespondArguments) => {
      said.push(typeof m === 'string' ? { text: m } : m);
      return new Response('ok');
    },
  };
}

function slash(text: string, o: { user?: string; channel?: string; trigger?: string } = {}): SlackCommandMiddlewareArgs['command'] {
  return {
    token: 't', command: '/seat', text, response_url: 'https://hooks.slack.example/x', trigger_id: o.trigger ?? `${Math.random()}`,
    user_id: o.user ?? 'U0ONCALL01', user_name: 'oncall', team_id: 'T0', team_domain: 'drill', channel_id: o.channel ?? 'C0INCIDENT', channel_name: 'incident', api_app_id: 'A0',
  };
}

test('/seat help, a bad word, --json and a stranger: each answered on the ack, no work started', async () => {
  const f = fakes();
  const run = (command: SlackCommandMiddlewareArgs['command']) => seatCommand({ command, ack: f.ack, respond: f.respond, client: f.client }, f.ctx);
  await run(slash('help'));
  await run(slash('prbe fv'));
  await run(slash('probe fv --json'));
  await run(slash('probe fv', { user: 'U0VISITOR9' }));
  await run(slash('probe fv', { channel: 'C0RANDOM' }));
  const texts = f.acks.map((a) => String((a as RespondArguments).text));
  assert.match(texts[0]!, /^```usage: \/seat probe <site\|all>/);
  assert.match(texts[1]!, /^:x: unknown command "prbe"/);
  assert.match(texts[2]!, /--json is for the terminal/);
  assert.match(texts[3]!, /only the on-call people may use \/seat: <@U0ONCALL01>, <@U0ONCALL02>/);
  assert.match(texts[4]!, /\/seat works in <#C0INCIDENT> only/);
  assert.ok(f.acks.every((a) => (a as RespondArguments).response_type === 'ephemeral'));
  assert.equal(f.tracked.length, 0);
});

test('a replayed /seat request is acked with nothing, logged, and starts no work', async () => {
  const f = fakes();
  f.ctx.replays.first('42.replayed');
  await seatCommand({ command: slash('probe fv', { trigger: '42.replayed' }), ack: f.ack, respond: f.respond, client: f.client }, f.ctx);
  assert.deepEqual(f.acks, [undefined]);
  assert.equal(f.tracked.length, 0);
  assert.match(f.logged.join('\n'), /replayed \/seat request ignored \(trigger_id 42\.replayed, user U0ONCALL01\)/);
});

function click(value: string, o: { trigger?: string; ts?: string } = {}): Pick<ProbeAgainArgs, 'body' | 'action'> {
  const action = { type: 'button', action_id: 'probe_again', block_id: 'b', text: { type: 'plain_text', text: 'Probe again' }, value, action_ts: '1' } as const;
  const body = {
    type: 'block_actions', trigger_id: o.trigger ?? `${Math.random()}`, user: { id: 'U0ONCALL02', name: 'oncall2', team_id: 'T0' },
    channel: { id: 'C0INCIDENT', name: 'incident' }, container: { type: 'message', message_ts: o.ts ?? '1.1', channel_id: 'C0INCIDENT' },
    message: { type: 'message', ts: o.ts ?? '1.1', text: 'report' }, actions: [action], team: null, api_app_id: 'A0', token: 't', response_url: 'https://hooks.slack.example/y',
  };
  return { body, action } as unknown as Pick<ProbeAgainArgs, 'body' | 'action'>;
}

test('Probe again: a button from an older inventory, a message already being probed, a replay', async () => {
  const f = fakes();
  const press = (c: Pick<ProbeAgainArgs, 'body' | 'action'>) => probeAgain({ ...c, ack: f.ack, respond: f.respond, client: f.client }, f.ctx);
  await press(click(JSON.stringify({ site: 'mars', only: ['gpus'], timeoutMs: null, paid: false })));
  await press(click('{not json'));
  f.ctx.busyMessages.add('C0INCIDENT:7.7');
  await press(click(JSON.stringify({ site: 'fv', only: ['gpus'], timeoutMs: null, paid: false }), { ts: '7.7' }));
  f.ctx.replays.first('43.replayed');
  await press(click(JSON.stringify({ site: 'fv', only: ['gpus'], timeoutMs: null, paid: false }), { trigger: '43.replayed' }));
  assert.equal(f.acks.length, 4, 'every click is acked');
  assert.deepEqual(
    f.said.map((s) => s.text),
    [':x: this button belongs to an older inventory; run /seat probe again', ':x: this button belongs to an older inventory; run /seat probe again', ':hourglass: already probing into this message'],
  );
  assert.equal(f.tracked.length, 0);
  assert.match(f.logged.join('\n'), /replayed Probe again ignored \(trigger_id 43\.replayed, user U0ONCALL02\)/);
});
