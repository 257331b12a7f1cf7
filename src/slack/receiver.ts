// The HTTP side of the bot: Slack's signed POSTs to /slack/events, handed to the Bolt app.
//
// Bolt's own HTTPReceiver does the same with more per request (the body read through raw-body,
// the form parsed twice, a URL object to route, a 3-second timer for every request, a closure per
// ack), about 100 µs of CPU an ack on this fleet's bot; under several clients at once that is what
// the acks queue behind. This one keeps the parts that matter and Bolt's own signature check:
//   - POST /slack/events only (what manifest.yml points at); anything else 404 (its body discarded);
//   - the body capped (MAX_BODY_BYTES; 413 past it, the connection closed), read before the check;
//   - Bolt's verifySlackRequest: `v0` HMAC-SHA256 of "v0:timestamp:body" with the signing secret,
//     compared in constant time, a timestamp over five minutes old refused (401);
//   - ssl_check (200, nothing run) and url_verification (the challenge echoed) as Slack asks;
//   - a form body, or a form with a JSON `payload`, or a JSON body; anything else 400;
//   - the ack answers at once; a second ack throws, as Bolt's does; an event not acked within
//     NO_ACK_MS of its arrival (Bolt's default) is answered 404, so Slack says the app did not
//     answer, and an ack after that answers nothing;
//   - processEvent rejecting before the ack (a listener's error the app's error handler hands back):
//     500 at once, logged. The bot's handler logs and keeps the error, so there it is the 404.
//   - slow senders: a request has 15 s to arrive (headers 10 s), and stop() cuts what is still
//     open a second after it stops listening.
import bolt, { type App, type Logger, type Receiver, type ReceiverEvent } from '@slack/bolt';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parse as parseForm } from 'node:querystring';
import { slackErrorCode } from './errors.ts';

/** The one path Slack posts to (manifest.yml: request_url). */
export const EVENTS_PATH = '/slack/events';
/** Slack's payloads are a few KiB (a modal's inputs are at most 3,000 characters each); 1 MiB is room to spare. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** How long an event may go unacknowledged before Slack is told no (Bolt's own default). */
export const NO_ACK_MS = 3001;
/** Slack sends a few KiB at once; a request still arriving after this is cut (Node's default is 300 s). */
const REQUEST_TIMEOUT_MS = 15_000;
const HEADERS_TIMEOUT_MS = 10_000;
/** How long stop() waits for a request in flight before it closes the connection. */
const STOP_GRACE_MS = 1000;

export interface SeatReceiverOptions {
  signingSecret: string;
  /** Where refusals are logged (default: the app's logger). */
  logger?: Logger;
  /** Milliseconds clock for the signature's five-minute window (default Date.now). */
  now?: () => number;
  /** Milliseconds before an event no listener acked is answered 404 (tests shorten it). */
  noAckMs?: number;
}

export class SeatReceiver implements Receiver {
  private app: App | undefined;
  private server: Server | undefined;
  private readonly opts: Required<Omit<SeatReceiverOptions, 'logger'>> & Pick<SeatReceiverOptions, 'logger'>;

  constructor(opts: SeatReceiverOptions) {
    this.opts = { now: Date.now, noAckMs: NO_ACK_MS, ...opts };
  }

  private get log(): Logger | undefined {
    return this.opts.logger ?? this.app?.logger;
  }

  init(app: App): void {
    this.app = app;
  }

  /** Listens on `port` (0 picks a free one) and resolves with the server, as Bolt's receiver does. */
  start(port: number): Promise<Server> {
    if (this.server) return Promise.reject(new Error('the Slack receiver is already started'));
    const server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, (req, res) => this.request(req, res));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', (err) => {
        this.server = undefined;
        server.close();
        reject(err);
      });
      server.listen(port, () => resolve(server));
    });
  }

  stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeIdleConnections();
      // A request still arriving (or a client that never finishes one) does not hold the bot's exit.
      setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS).unref();
    });
  }

  private request(req: IncomingMessage, res: ServerResponse): void {
    const q = req.url?.indexOf('?') ?? -1;
    const path = q === -1 ? req.url : req.url!.slice(0, q);
    if (req.method !== 'POST' || path !== EVENTS_PATH) {
      answer(res, 404);
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (declared > MAX_BODY_BYTES) return tooLarge(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        tooLarge(req, res);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return;
      this.received(req, res, chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', () => res.destroy());
  }

  private received(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const log = this.log;
    const form = req.headers['content-type']?.split(';')[0]?.trim() === 'application/x-www-form-urlencoded';
    let fields: Record<string, unknown> | undefined;
    if (form) {
      fields = parseForm(raw);
      // Slack's connectivity check is sent unsigned and runs nothing.
      if (fields.ssl_check === '1') return answer(res, 200);
    }
    const signature = req.headers['x-slack-signature'];
    const timestamp = req.headers['x-slack-request-timestamp'];
    if (typeof signature !== 'string' || typeof timestamp !== 'string') {
      log?.warn('Slack request refused: no signature headers');
      return answer(res, 401);
    }
    try {
      bolt.verifySlackRequest({
        signingSecret: this.opts.signingSecret,
        body: raw,
        headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) },
        nowMilliseconds: this.opts.now(),
      });
    } catch (err) {
      log?.warn(`Slack request refused: ${err instanceof Error ? err.message : 'bad signature'}`);
      return answer(res, 401);
    }
    let body: Record<string, unknown>;
    try {
      body = form ? (typeof fields!.payload === 'string' ? asObject(JSON.parse(fields!.payload)) : fields!) : asObject(JSON.parse(raw));
    } catch {
      log?.warn('Slack request refused: its body does not read (a form, a form with a JSON payload, or JSON)');
      return answer(res, 400);
    }
    if (body.type === 'url_verification') return send(res, 200, 'application/json', JSON.stringify({ challenge: body.challenge }));
    this.dispatch(req, res, body);
  }

  private dispatch(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): void {
    const app = this.app;
    if (!app) return answer(res, 503);
    let acked = false;
    // As Bolt's: the window runs from the request's arrival, not from processEvent's end (which comes
    // only once every listener has finished).
    const timer = setTimeout(() => {
      if (acked || res.headersSent) return;
      this.log?.error(`an incoming Slack request was not acknowledged within ${this.opts.noAckMs} ms`);
      answer(res, 404);
    }, this.opts.noAckMs);
    timer.unref();
    const event: ReceiverEvent = {
      body,
      ack: async (response?: unknown) => {
        if (acked) throw new bolt.ReceiverMultipleAckError();
        acked = true;
        clearTimeout(timer);
        // Past the window Slack was already told no: a late ack answers nothing.
        respondWith(res, response);
      },
      ...retryOf(req),
      customProperties: {},
    };
    app.processEvent(event).catch((err: unknown) => {
      this.log?.error(`slack request failed: ${slackErrorCode(err)}`);
      clearTimeout(timer);
      if (acked) return;
      acked = true;
      answer(res, 500);
    });
  }
}

function asObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
  return v as Record<string, unknown>;
}

function retryOf(req: IncomingMessage): { retryNum?: number; retryReason?: string } {
  const num = req.headers['x-slack-retry-num'];
  const reason = req.headers['x-slack-retry-reason'];
  return {
    ...(typeof num === 'string' && /^\d{1,6}$/.test(num) ? { retryNum: Number(num) } : {}),
    ...(typeof reason === 'string' ? { retryReason: reason.slice(0, 100) } : {}),
  };
}

/** The ack's answer: nothing, a string as is, or an object as JSON (what Bolt sends for each). */
function respondWith(res: ServerResponse, response: unknown): void {
  if (res.headersSent) return;
  if (!response) return answer(res, 200);
  if (typeof response === 'string') return send(res, 200, 'text/plain; charset=utf-8', response);
  send(res, 200, 'application/json', JSON.stringify(response));
}

/**
 * Headers and body in one write: with its length said up front, Node sends neither chunked framing
 * nor a second buffer (a writeHead() then end(body), as Bolt's receiver does, is chunked: several buffers in a writev).
 */
function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function answer(res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}

function tooLarge(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) {
    res.writeHead(413, { connection: 'close' });
    res.end();
  }
  // The rest of the body is not read: the connection goes with the answer.
  req.socket.destroySoon();
}
