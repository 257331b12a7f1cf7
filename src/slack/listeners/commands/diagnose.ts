// `/seat diagnose <pasted log lines>`: the paste goes to the log reader as typed (line breaks
// kept), not through the one-line command grammar; the diagnosis goes in the open incident's
// thread of the channel (everyone on it sees it), else in the channel. Slack sends <, > and & as entities; a paste is at most what a slash command carries.
import type { RespondFn } from '@slack/bolt';
import type { SeatContext, WebClient } from '../../context.ts';
import { post, serviceOf } from '../../incident-flow.ts';
import { esc, section } from '../../mrkdwn.ts';

const MAX_PASTE = 40_000;
const MAX_REPLY = 3_500;

/** The paste after `diagnose`, or null when the text is no diagnose command. */
export function pastedLog(text: string): string | null {
  const m = /^\s*diagnose(?:\s+|$)([\s\S]*)$/.exec(text);
  if (!m) return null;
  const rest = m[1] ?? '';
  if (/^--seat\b/.test(rest.trim())) return null; // the grammar's business: docker logs over ssh
  return rest.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Where the diagnosis goes: the open incident's thread in this channel (seen by everyone in it), else the channel. */
export interface DiagnoseWhere {
  ctx: SeatContext;
  client: WebClient;
  channel: string;
}

export async function diagnosePaste(paste: string, respond: RespondFn, where?: DiagnoseWhere): Promise<void> {
  if (paste.trim() === '') {
    await respond({ response_type: 'ephemeral', text: ':x: paste the log lines after `/seat diagnose` (the vLLM error, the KV cache lines, the FlashInfer warnings)' });
    return;
  }
  const { diagnoseText, renderDiagnosis } = await import('../../../logdiag/index.ts');
  const d = diagnoseText(paste.slice(0, MAX_PASTE));
  const text = renderDiagnosis(d, { source: 'the pasted text' });
  const shown = text.length > MAX_REPLY ? `${text.slice(0, MAX_REPLY)}\n… (cut: paste fewer lines, or run seat diagnose on the file)` : text;
  const head = d.problems > 0 ? `:mag: *${d.problems} problem${d.problems === 1 ? '' : 's'}* found in the pasted log` : ':mag: nothing wrong recognised in the pasted log';
  const reply = `${head}\n\`\`\`${esc(shown)}\`\`\``;
  const thread = where ? await incidentThread(where) : undefined;
  if (where && thread) {
    const r = await post(where.ctx, where.client, thread.channel, thread.thread, { text: reply, blocks: [section(reply)] });
    if ('ts' in r) return;
  }
  // No incident thread here: answered in the channel, so the second person sees it too.
  await respond({ response_type: 'in_channel', text: reply });
}

/** The open incident that lives in this channel, newest first. */
async function incidentThread(w: DiagnoseWhere): Promise<{ channel: string; thread: string } | undefined> {
  const service = serviceOf(w.ctx);
  if (!service) return undefined;
  const open = await service.deps.store.incidents({ status: 'open' });
  return open.filter((i) => i.slack?.channel === w.channel).sort((a, b) => b.id - a.id)[0]?.slack;
}
