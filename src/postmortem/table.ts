// GFM tables from cells that are already Markdown-safe (escaped by md() or built from numbers).

export function table(head: string[], rows: string[][], align?: ('l' | 'r')[]): string {
  const rule = head.map((_, i) => (align?.[i] === 'r' ? '---:' : '---'));
  const line = (cells: string[]): string => `| ${cells.map((c) => (c === '' ? ' ' : c)).join(' | ')} |`;
  return [line(head), line(rule), ...rows.map(line)].join('\n');
}

/** 1010 → `1,010`; null → `—`. */
export function num(n: number | null | undefined, unit = ''): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return `${Math.round(n).toLocaleString('en-US')}${unit}`;
}
