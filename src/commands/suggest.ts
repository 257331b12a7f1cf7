// "did you mean probe?": the nearest known word within a couple of typos, or none.

/** Edit distance with transpositions counted as one edit ("prboe" is one slip from "probe"). */
export function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]!.push(d);
    }
  }
  return rows[a.length]![b.length]!;
}

export function nearest(word: string, known: readonly string[]): string | undefined {
  if (word.length > 64) return undefined;
  const limit = word.length <= 4 ? 1 : 2;
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(word.toLowerCase(), name.toLowerCase());
    if (d <= limit && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
