// A file uploaded to Slack, measured by the bot itself: files.info for its download address, the
// bytes fetched with the bot token (sent to Slack's own hosts only), hashed as they stream. What
// the bot read is recorded as measured; a hash someone typed is only ever declared.
import { createHash } from 'node:crypto';
import { PowerLogPush, powerLogFactsOf } from '../powerlog/push.ts';
import type { Evidence } from '../incident/types.ts';
import { slackErrorCode } from './errors.ts';
import type { WebClient } from './web-client.ts';

/** Fetches a Slack file's bytes with the bot token; tests serve their own from loopback. */
export type FetchFile = (url: string, token: string) => Promise<Response>;

export const MAX_EVIDENCE_BYTES = 2 * 1024 ** 3;
const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;
const MAX_REDIRECTS = 3;

/** Slack's file hosts, and the host of a configured Slack API stand-in (SLACK_API_URL). */
export function slackFileHost(url: URL, apiUrl?: string): boolean {
  if (url.protocol === 'https:' && (url.hostname === 'slack.com' || url.hostname.endsWith('.slack.com') || url.hostname.endsWith('.slack-edge.com'))) return true;
  if (!apiUrl) return false;
  try {
    const api = new URL(apiUrl);
    return api.hostname === url.hostname && api.protocol === url.protocol;
  } catch {
    return false;
  }
}

/** The real download: the token only ever goes to a Slack host, redirects included. */
export function fetchSlackFile(apiUrl?: string, fetchImpl: typeof fetch = fetch): FetchFile {
  return async (url, token) => {
    let at = new URL(url);
    const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
    for (let hops = 0; ; hops++) {
      if (!slackFileHost(at, apiUrl)) throw new Error(`${at.host} is not a Slack file host: the bot token is not sent there`);
      const res = await fetchImpl(at, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual', signal });
      const next = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (!next || hops >= MAX_REDIRECTS) return res;
      await res.body?.cancel();
      at = new URL(next, at);
    }
  };
}

export async function measureSlackFile(client: WebClient, fetchFile: FetchFile, fileId: string, of: string): Promise<{ evidence: Evidence } | { error: string }> {
  let info: { name?: string; title?: string; size?: number; mimetype?: string; url_private_download?: string; url_private?: string } | undefined;
  try {
    info = (await client.files.info({ file: fileId })).file;
  } catch (err) {
    const code = slackErrorCode(err);
    return { error: `Slack would not describe file ${fileId} (${code})${code === 'file_not_found' ? ': is it shared in this channel?' : code === 'missing_scope' ? ': the app needs files:read (recreate it from manifest.yml)' : ''}` };
  }
  const url = info?.url_private_download ?? info?.url_private;
  if (!info || !url) return { error: `Slack gave no download address for file ${fileId}` };
  const name = info.name || info.title || fileId;
  const token = client.token;
  if (!token) return { error: 'the bot has no token to download files with' };
  let res: Response;
  try {
    res = await fetchFile(url, token);
  } catch (err) {
    return { error: `could not download ${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
  }
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel();
    return { error: `could not download ${name}: HTTP ${res.status}` };
  }
  // Without files:read Slack answers 200 with its sign-in page: that is not the file.
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/html') && !(info.mimetype ?? '').startsWith('text/html')) {
    await res.body.cancel();
    return { error: `Slack sent a web page instead of ${name}: the app needs files:read and must be in this channel` };
  }
  const hash = createHash('sha256');
  // A power log is read as it streams past: its figures go into the journal beside its hash.
  const power = of === 'power-log' ? new PowerLogPush() : null;
  let size = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > MAX_EVIDENCE_BYTES) return { error: `${name} is over ${MAX_EVIDENCE_BYTES / 1024 ** 3} GiB: record its sha256 and size as typed instead` };
      hash.update(chunk);
      power?.push(chunk);
    }
  } catch (err) {
    return { error: `the download of ${name} broke off: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
  }
  if (typeof info.size === 'number' && info.size !== size) return { error: `downloaded ${size} bytes of ${name}, but Slack says it has ${info.size}: try again` };
  const read = power?.end();
  return { evidence: { kind: 'file', of, name, size, sha256: hash.digest('hex'), measured: true, ...(read?.ok ? { powerlog: powerLogFactsOf(read.summary) } : {}) } };
}
