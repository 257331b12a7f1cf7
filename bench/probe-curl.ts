// The anchors a whole `seat probe` process is measured against, run in the same bench: `curl -Z` making
// the same HTTP requests (the listing, then one chat request per alias, same headers, bodies, timeout,
// no redirects followed) and a node process that does nothing but wait the probe timeout.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEY, runProcess, type ProcessRun } from './probe-fleet.ts';

export function curlAvailable(): boolean {
  return spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A curl config: one block per request, each with the same method, headers, body and caps as the probe's. */
export function curlConfig(gatewayUrl: string, aliases: string[], timeoutMs: number, maxBytes: number): string {
  const common = [`max-time = ${timeoutMs / 1000}`, `connect-timeout = ${timeoutMs / 1000}`, `max-filesize = ${maxBytes}`, 'output = "/dev/null"'];
  const blocks = [[`url = "${gatewayUrl}/v1/models"`, `header = "authorization: Bearer ${KEY}"`, ...common].join('\n')];
  for (const a of aliases) {
    const body = JSON.stringify({ model: a, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
    blocks.push(
      [
        `url = "${gatewayUrl}/v1/chat/completions"`,
        `header = "authorization: Bearer ${KEY}"`,
        'header = "content-type: application/json"',
        `data = ${JSON.stringify(body)}`,
        ...common,
      ].join('\n'),
    );
  }
  return `${blocks.join('\nnext\n')}\n`;
}

export interface Anchors {
  curl(): Promise<ProcessRun>;
  nodeFloor(): Promise<ProcessRun>;
  close(): Promise<void>;
}

export async function anchors(gatewayUrl: string, aliases: string[], timeoutMs: number, maxBytes: number, parallel: number): Promise<Anchors> {
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-curl-'));
  const config = join(dir, 'curl.conf');
  await writeFile(config, curlConfig(gatewayUrl, aliases, timeoutMs, maxBytes));
  return {
    curl: () => runProcess('curl', ['-s', '-Z', '--parallel-max', String(parallel), '-K', config], process.env),
    nodeFloor: () => runProcess(process.execPath, ['-e', `setTimeout(() => {}, ${timeoutMs})`], process.env),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
