// One canonical serialisation of a report (and later of journal events): keys sorted, undefined
// dropped, numbers as JSON writes them. The journal hashes these bytes, so the same value must
// always give the same string, whatever order its keys were built in.

/** The version of the findings contract (`subject`, `reason`, `provenance`, `observedAt`, `data`).
 * 3: each finding's `provenance.vantage` names where it was measured from, and the report lists its
 * `vantages`; an address may have the role `oob-path` (a BMC's or UPS's separate way out). */
export const SCHEMA_VERSION = 3;

export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out, new Set());
  return out.join('');
}

function write(v: unknown, out: string[], seen: Set<object>): void {
  if (v === null || v === undefined) {
    out.push('null');
    return;
  }
  switch (typeof v) {
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'number':
      // -0 and 0 are one number; NaN and the infinities have no JSON form.
      out.push(Number.isFinite(v) ? JSON.stringify(v === 0 ? 0 : v) : 'null');
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: a ${typeof v} has no canonical form`);
  }
  const obj = v as object;
  if (seen.has(obj)) throw new TypeError('canonicalJson: a cycle has no canonical form');
  seen.add(obj);
  if (Array.isArray(obj)) {
    out.push('[');
    obj.forEach((x: unknown, i) => {
      if (i > 0) out.push(',');
      write(x, out, seen);
    });
    out.push(']');
  } else if (obj instanceof Date) {
    out.push(JSON.stringify(obj.toISOString()));
  } else {
    const entries = Object.entries(obj)
      .filter(([, x]) => x !== undefined && typeof x !== 'function')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out.push('{');
    entries.forEach(([k, x], i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(k), ':');
      write(x, out, seen);
    });
    out.push('}');
  }
  seen.delete(obj);
}
