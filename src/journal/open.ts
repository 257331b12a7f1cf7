// Which store a journal spec names: a `postgres://` (or `postgresql://`) URL is the shared journal
// of bot replicas (postgres.ts, loaded only then); anything else is a SQLite file.
import type { JournalStore } from './store.ts';
import { openSqliteJournal } from './sqlite.ts';

export interface OpenJournalOptions {
  /** recordedAt of every event. */
  now?: () => Date;
}

export function isPostgresUrl(spec: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(spec);
}

export async function openJournal(spec: string, o: OpenJournalOptions = {}): Promise<JournalStore> {
  if (isPostgresUrl(spec)) {
    const { openPostgresJournal } = await import('./postgres.ts');
    return openPostgresJournal(spec, o);
  }
  return openSqliteJournal(spec, o);
}

/** The spec as a person may see it: a URL's password (and any password= parameter) never shown. */
export function shownJournal(spec: string): string {
  if (!isPostgresUrl(spec)) return spec;
  return spec.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, '$1:***@').replace(/([?&]password=)[^&]*/gi, '$1***');
}
