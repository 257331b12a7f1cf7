// The HTML postmortem in a real browser: headless Chromium loads the file written by `seat export`
// and dumps its DOM, where the timeline table and the SVG charts must be. Skipped, saying why, on a
// machine with no Chromium (CI installs Debian's `chromium`).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeDocument } from '../../src/cli/export.ts';
import { renderPostmortem } from '../../src/postmortem/index.ts';
import { EXPORTED_AT, scriptSiteDark, type Scripted } from './incident.ts';
import { tableAfter } from './read.ts';

const BROWSERS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const TIMEOUT_MS = 60_000;

async function findBrowser(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of BROWSERS) {
      try {
        await access(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not here
      }
    }
  }
  return null;
}

/** Runs the browser in its own process group, killed whole when it ends or overruns. */
function dumpDom(browser: string, url: string, profile: string): Promise<{ code: number | null; out: string; err: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(browser, ['--headless', '--disable-gpu', '--no-sandbox', '--no-first-run', '--disable-dev-shm-usage', '--disable-extensions', `--user-data-dir=${profile}`, '--dump-dom', url], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let timedOut = false;
    const kill = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      kill(); // the renderer and zygote children too
      resolve({ code, out, err, timedOut });
    });
  });
}

let s: Scripted;
let dir: string;

before(async () => {
  s = await scriptSiteDark();
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-export-browser-'));
});
after(async () => {
  await s?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('headless Chromium renders the timeline and the SVG charts of the HTML export', { timeout: TIMEOUT_MS + 30_000 }, async (t) => {
  const browser = await findBrowser();
  if (!browser) {
    t.skip(`no chromium: none of ${BROWSERS.join(', ')} on PATH`);
    return;
  }
  const view = (await s.service.view(s.id))!;
  const v = await s.store.verify(s.id);
  assert.ok(v.ok);
  const file = join(dir, 'postmortem.html');
  const wrote = await writeDocument(file, renderPostmortem(view, { format: 'html', head: v.heads.get(s.id)!, now: EXPORTED_AT, fleet: s.fleet }));
  assert.ok('bytes' in wrote);
  const r = await dumpDom(browser, pathToFileURL(file).href, join(dir, 'profile'));
  assert.equal(r.timedOut, false, `the browser did not finish within ${TIMEOUT_MS} ms`);
  assert.equal(r.code, 0, r.err.slice(-2000));
  const dom = r.out;
  assert.match(dom, /<title>Postmortem #1: FV dark: UPS tripped under two loaded cards<\/title>/);
  // The timeline as the browser built it: every event and the four phase markers.
  const rows = tableAfter(dom, 'Timeline');
  assert.equal(rows.length, view.events.length + 4);
  assert.ok(rows.some((row) => row[4]?.startsWith('MITIGATED')));
  // The charts are SVG elements in the DOM, with their shapes and labels.
  const svgs = [...dom.matchAll(/<svg\b[^>]*data-chart="(gpu|ups)"[^>]*>[\s\S]*?<\/svg>/g)];
  assert.deepEqual(svgs.map((m) => m[1]), ['gpu', 'gpu', 'gpu', 'gpu', 'ups']);
  for (const m of svgs) assert.match(m[0], /<rect |<polyline /);
  assert.match(svgs[4]![0], /<polyline class="load"/);
  assert.match(svgs[4]![0], /rating 900 W/);
  assert.ok(!/<script/i.test(dom));
});
