// PLACEHOLDER written by the lead so open.ts typechecks: H-PG replaces this file whole.
import { JournalError, type JournalStore } from './store.ts';

export async function openPostgresJournal(url: string, _o: { now?: () => Date } = {}): Promise<JournalStore> {
  void url;
  throw new JournalError('journal_io', 'the PostgreSQL journal is not built in this version');
}
