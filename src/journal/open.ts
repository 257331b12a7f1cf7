// Which store a journal spec names: a `postgres://` (or `postgresql://`) URL is the shared journal
// of bot replicas (postgres.ts, loaded only then); anything else is a SQLite file.
import type { JournalStore } from './store.ts';
import { openSqliteJournal } from './sqlite.ts';
import { isPostgresUrl } from './spec.ts';

export { isPostgresUrl, shownJournal } from './spec.ts';

export interface OpenJournalOptions {
  /** recordedAt of every event. */
  now?: () => Date;
}

export async function openJournal(spec: string, o: OpenJournalOptions = {}): Promise<JournalStore> {
  if (isPostgresUrl(spec)) {
    const { openPostgresJournal } = await import('./postgres.ts');
    return openPostgresJournal(spec, o);
  }
  return openSqliteJournal(spec, o);
}
