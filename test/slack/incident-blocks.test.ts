// The incident's Block Kit and modal reading, alone: free text only in plain_text, runbook Markdown
// as escaped mrkdwn, and every bad modal field named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evidenceText, fmtBytes, parentMessage } from '../../src/slack/incident-blocks.ts';
import { markdownToMrkdwn } from '../../src/slack/runbook-mrkdwn.ts';
import { readEvidence, readInput, readMeta, type Values } from '../../src/slack/step-modals.ts';
import type { Incident } from '../../src/incident/types.ts';

const field = (value: string) => ({ v: { type: 'plain_text_input', value } });

test('a title is shown in plain_text only; the notification text is escaped', () => {
  const incident: Incident = { id: 7, site: 'fv', title: '<!channel> *down* `now` <@U123> :fire:', status: 'open', openedBy: { kind: 'slack', id: 'U0ONCALL01', name: 'ana' }, openedAt: '2026-09-13T07:02:11.000Z', drill: false };
  const m = parentMessage(incident);
  const json = JSON.stringify(m.blocks);
  assert.ok(json.includes('{"type":"plain_text","text":"<!channel> *down* `now` <@U123> :fire:","emoji":false}'));
  assert.equal((json.match(/<!channel>/g) ?? []).length, 1, 'only inside the plain_text');
  assert.equal(m.text, 'Incident #7 at fv: &lt;!channel&gt; *down* `now` &lt;@U123&gt; :fire:');
  assert.match(json, /opened by <@U0ONCALL01> <!date\^1789282931\^\{date_short_pretty\} \{time\}\|07:02 UTC>/);
});

test('runbook Markdown becomes mrkdwn: paragraphs on one line, code fenced, links and bold in Slack syntax, text escaped', () => {
  const md = 'Look at **the log** & <b>tags</b>\nbefore `ls <dir>`.\n\n    /tank/power.log\n\n- see [the doc](https://example.org/a?b=1&c=2)\n- two';
  assert.equal(
    markdownToMrkdwn(md),
    'Look at *the log* &amp; &lt;b&gt;tags&lt;/b&gt; before `ls &lt;dir&gt;`.\n\n```\n/tank/power.log\n```\n\n• see <https://example.org/a?b=1&amp;c=2|the doc>\n• two',
  );
});

test('sizes and evidence read as people expect', () => {
  assert.equal(fmtBytes(999), '999 bytes');
  assert.equal(fmtBytes(2_100_000), '2.1 MB');
  assert.equal(evidenceText({ kind: 'file', of: 'power-log', name: 'power.log', size: 2_100_000, sha256: '1a2b'.repeat(16), measured: true }), 'power.log 2.1 MB sha256 1a2b1a2b1a2b… (measured by the bot)');
});

test('modal fields: each bad one named by its block, good ones typed', () => {
  const file = { kind: 'file', of: 'power-log', label: 'power.log' } as const;
  assert.deepEqual(readEvidence({}, file), { errors: { ev_file: 'upload the file, name one already in Slack, or type its sha256 and size' } });
  assert.deepEqual(readEvidence({ ev_file_id: field('not a file') } as Values, file), { errors: { ev_file_id: 'expected a Slack file link or its id (F…)' } });
  assert.deepEqual(readEvidence({ ev_file_id: field('https://x.slack.com/files/U1/F0ABCDEF12/power.log') } as Values, file), { draft: { kind: 'slack-file', fileId: 'F0ABCDEF12', of: 'power-log' } });
  const value = { kind: 'value', of: 'restart-count', label: 'restarts', pattern: '^\\d+$' } as const;
  assert.deepEqual(readEvidence({ ev_value: field('many') } as Values, value), { errors: { ev_value: 'this does not look like restarts (expected ^\\d+$)' } });
  assert.deepEqual(readEvidence({ ev_value: field('3') } as Values, value), { draft: { kind: 'ready', evidence: { kind: 'value', of: 'restart-count', value: '3' } } });
  assert.deepEqual(readEvidence({}, { kind: 'yesno', of: 'ups-reset', question: 'reset?' }), { errors: { ev_yesno: 'answer yes or no' } });
  assert.deepEqual(readInput({ in_alias: field('gen paid'), in_backend: field('openrouter') } as Values, 'alias-route'), { errors: { in_alias: 'expected a name: letters, digits and . _ : / - (no spaces)' } });
  assert.deepEqual(readInput({ in_seat: field('gen'), in_gpu: field('1'), in_wantMiB: field('20480') } as Values, 'seat-move'), { input: { seat: 'gen', gpu: 1, wantMiB: 20480 } });
  assert.equal(readMeta('{"incident":1}'), null);
  assert.equal(readMeta('not json'), null);
});
