// `/seat diagnose <pasted log lines>`: the paste goes to the log reader as typed (line breaks
// kept), not through the one-line command grammar, and the diagnosis is answered to the person
// who asked. Slack sends <, > and & as entities; a paste is at most what a slash command carries.
import type { RespondFn } from '@slack/bolt';
import { esc } from '../../mrkdwn.ts';

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

export async function diagnosePaste(paste: string, respond: RespondFn): Promise<void> {
  if (paste.trim() === '') {
    await respond({ response_type: 'ephemeral', text: ':x: paste the log lines after `/seat diagnose` (the vLLM error, the KV cache lines, the FlashInfer warnings)' });
    return;
  }
  const { diagnoseText, renderDiagnosis } = await import('../../../logdiag/index.ts');
  const d = diagnoseText(paste.slice(0, MAX_PASTE));
  const text = renderDiagnosis(d, { source: 'the pasted text' });
  const shown = text.length > MAX_REPLY ? `${text.slice(0, MAX_REPLY)}\n… (cut: paste fewer lines, or run seat diagnose on the file)` : text;
  const head = d.problems > 0 ? `:mag: *${d.problems} problem${d.problems === 1 ? '' : 's'}* found in the pasted log` : ':mag: nothing wrong recognised in the pasted log';
  await respond({ response_type: 'ephemeral', text: `${head}\n\`\`\`${esc(shown)}\`\`\`` });
}
