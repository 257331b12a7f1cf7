// The hostile-peer answers a probe must survive from a gateway: a huge /v1/models listing, a redirect
// to another port, and a body that never ends.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { CREATED } from './bodies.ts';

/** The name of the i-th filler model of a huge listing. */
export function fillerModel(i: number): string {
  return `drill-filler-${String(i).padStart(6, '0')}`;
}

/** /v1/models's body; the filler part of a huge listing is built once per size, not per request. */
export function fillerListing(): (data: object[], extra: number) => string {
  let cached = { n: 0, text: '' };
  return (data, extra) => {
    if (extra !== cached.n) {
      const parts: string[] = [];
      for (let i = 1; i <= extra; i++) parts.push(JSON.stringify({ id: fillerModel(i), object: 'model', created: CREATED, owned_by: 'openai' }));
      cached = { n: extra, text: parts.join(',') };
    }
    const own = data.map((d) => JSON.stringify(d)).join(',');
    const sep = own && cached.text ? ',' : '';
    return `{"data":[${own}${sep}${cached.text}],"object":"list"}`;
  };
}

/** What a front proxy (uvicorn behind nginx, an ingress) sends for a moved route. */
export function redirect(res: ServerResponse, location: string): void {
  if (res.headersSent || res.destroyed) return;
  const text = `Redirecting to ${location}`;
  res.writeHead(307, { location, 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * 200, then a chat completion's opening followed by JSON whitespace for ever: valid so far, so a
 * streaming parser cannot bail out early; only a size or time cap ends it. Stops when the client goes.
 */
export async function endless(res: ServerResponse, later: (ms: number) => Promise<void>, chunkBytes: number, everyMs: number): Promise<void> {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(200, { 'content-type': 'application/json' }); // no content-length: chunked
  res.write(`{"id":"chatcmpl-${randomBytes(12).toString('hex')}","object":"chat.completion","choices":[`);
  const chunk = ' '.repeat(Math.max(1, chunkBytes));
  let gone = false;
  res.once('close', () => (gone = true));
  while (!gone) {
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
    await later(everyMs);
  }
}
