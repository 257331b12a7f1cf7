// A pasted snippet whose line breaks were lost on the way (a command line, a chat command's free
// text, both turn them into spaces): cut back into records where a log record starts, so two
// messages on one "line" are read as two, and each fallback is counted. Text with its line breaks
// is left as it is.
import { stripPrefixes } from './prepare.ts';

// Where a record may start: docker's stamp, a process prefix, vLLM's level and time, Python's
// asctime form (consecutive parts of one prefix are one start), an exception's name, or a bare
// FlashInfer autotuner warning.
const PART = String.raw`(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z\s+|\([A-Za-z][^()]{0,60}\bpid=\d+\)\s+|(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d \d\d:\d\d:\d\d\b|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - )`;
const RECORD_START = new RegExp(String.raw`(?<=^|\s)(?:${PART})+|(?<=^|[\s\`"*])(?:\[Autotuner\]|(?:[a-z_]+\.)*[A-Z][A-Za-z]*(?:Error|Exception):\s)`, 'g');

export function* records(text: string): Generator<string> {
  let from = 0;
  for (const m of text.matchAll(RECORD_START)) {
    const before = text.slice(from, m.index);
    // Only prefixes so far (`WARNING 09-04 16:45:07 [autotuner.py:469] [Autotuner]: …`): the same record.
    if (stripPrefixes(before.trim()) === '') continue;
    yield before.trim();
    from = m.index;
  }
  const rest = text.slice(from).trim();
  if (rest !== '') yield rest;
}
