/** A pattern that matches exactly one of `ids` (Bolt's constraints take a string or a RegExp). */
export function exactly(ids: readonly string[]): RegExp {
  return new RegExp(`^(?:${ids.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
}
