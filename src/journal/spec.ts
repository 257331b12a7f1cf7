// A journal spec: a `postgres://` (or `postgresql://`) URL is the shared journal of replicas;
// anything else is a SQLite file. Apart from open.ts so the stores can name themselves without it.

export function isPostgresUrl(spec: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(spec);
}

/** The spec as a person may see it: a URL's password (and any password= parameter) never shown. */
export function shownJournal(spec: string): string {
  if (!isPostgresUrl(spec)) return spec;
  return spec.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, '$1:***@').replace(/([?&]password=)[^&]*/gi, '$1***');
}
