// `seat journal migrate` and `seat journal copy`: the PostgreSQL journal's schema, run as its owner
// role (the bot role gets INSERT and SELECT only), and a SQLite journal moved over with its chain.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { isPostgresUrl, shownJournal } from '../journal/open.ts';
import { connect, explainPg, openPostgresJournal } from '../journal/postgres.ts';
import { migrateSchema, PG_SCHEMA_VERSION, schemaVersion } from '../journal/pg/schema.ts';
import { openSqliteCore } from '../journal/sqlite.ts';
import type { CliIo, ExitCode } from './io.ts';

const DEFAULT_BOT = 'seat_bot';

function message(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}

/** The value after `--name`, or undefined. */
function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/**
 * `seat journal migrate [--journal URL] [--bot-role NAME]`: runs the migrations not yet run (as
 * the role the URL names, which must own the schema) and grants the bot role (default seat_bot,
 * or SEAT_JOURNAL_BOT_ROLE) INSERT and SELECT. Running it again changes nothing.
 */
export async function journalMigrate(args: string[], io: CliIo): Promise<ExitCode> {
  const url = flag(args, '--journal') ?? io.env.SEAT_JOURNAL;
  if (!url || !isPostgresUrl(url)) {
    io.stderr.write('seat journal migrate: name the PostgreSQL journal: --journal postgres://owner@host/seat (or SEAT_JOURNAL); a SQLite journal migrates itself when opened\n');
    return 2;
  }
  const bot = flag(args, '--bot-role') ?? io.env.SEAT_JOURNAL_BOT_ROLE ?? DEFAULT_BOT;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(bot)) {
    io.stderr.write(`seat journal migrate: the bot role must be a plain role name like seat_bot; got ${JSON.stringify(bot.slice(0, 70))}\n`);
    return 2;
  }
  const shown = shownJournal(url);
  let sql;
  try {
    sql = connect(url);
  } catch (err) {
    io.stderr.write(`seat journal migrate: ${message(err)}\n`);
    return 2;
  }
  try {
    const r = await migrateSchema(sql, { bot });
    if (r.from > PG_SCHEMA_VERSION) {
      io.stderr.write(`seat journal migrate: ${shown} has schema version ${r.from}, newer than this seatbelt's ${PG_SCHEMA_VERSION}: left as it was\n`);
      return 3;
    }
    io.stdout.write(r.from === r.to
      ? `journal schema already at version ${r.to} (${shown}); nothing to do; ${bot} may INSERT and SELECT (EXECUTE seat_append; DELETE only its probe requests' rows)\n`
      : `journal schema migrated from version ${r.from} to ${r.to} (${shown}); ${bot} may INSERT and SELECT (EXECUTE seat_append; DELETE only its probe requests' rows)\n`);
    return 0;
  } catch (err) {
    io.stderr.write(`seat journal migrate: ${message(explainPg(err, shown, false))}\n`);
    return 3;
  } finally {
    await sql.end({ timeout: 2 }).catch(() => undefined);
  }
}

interface IncidentRow {
  id: number;
  site: string;
  title: string;
  opened_by: string;
  opened_at: string;
  drill: number;
  slack_channel: string | null;
  slack_thread: string | null;
}

interface RawEvent {
  incident: number;
  seq: number;
  kind: string;
  actor: string;
  happened_at: string;
  recorded_at: string;
  step: string | null;
  payload: string;
  amends: number | null;
  dedupe: string | null;
  prev_hash: string;
  hash: string;
}

/**
 * `seat journal copy --from journal.sqlite --to postgres://owner@…`: every incident with its
 * events exactly as stored (so the same hashes), its head record and its Slack thread, in one
 * transaction, into a migrated journal that holds no incident yet; then both are verified and
 * their heads compared. The SQLite file is read only.
 */
export async function journalCopy(args: string[], io: CliIo): Promise<ExitCode> {
  const from = flag(args, '--from');
  const to = flag(args, '--to') ?? io.env.SEAT_JOURNAL;
  if (!from || !to || !isPostgresUrl(to)) {
    io.stderr.write('seat journal copy: usage: seat journal copy --from journal.sqlite --to postgres://owner@host/seat\n');
    return 2;
  }
  if (!existsSync(from)) {
    io.stderr.write(`seat journal copy: ${from}: no such file\n`);
    return 2;
  }
  const shown = shownJournal(to);
  // The source verified first: a chain that does not hold is not copied.
  let source;
  try {
    const core = openSqliteCore(from);
    try {
      source = core.verify();
    } finally {
      core.close();
    }
  } catch (err) {
    io.stderr.write(`seat journal copy: cannot read ${from}: ${message(err)}\n`);
    return 3;
  }
  if (!source.ok) {
    io.stderr.write(`seat journal copy: ${from} does NOT hold (incident #${source.incident}, event ${source.seq}: ${source.why}); nothing was copied\n`);
    return 1;
  }
  const db = new Database(from, { readonly: true, fileMustExist: true });
  let sql;
  try {
    sql = connect(to);
  } catch (err) {
    db.close();
    io.stderr.write(`seat journal copy: ${message(err)}\n`);
    return 2;
  }
  try {
    if ((await schemaVersion(sql)) !== PG_SCHEMA_VERSION) {
      io.stderr.write(`seat journal copy: ${shown}: the schema is missing or not at version ${PG_SCHEMA_VERSION}: run seat journal migrate --journal ${shown} first\n`);
      return 3;
    }
    const incidents = db.prepare('SELECT id, site, title, opened_by, opened_at, drill, slack_channel, slack_thread FROM incidents ORDER BY id').all() as IncidentRow[];
    const kept = db.prepare('SELECT incident, events, hash FROM heads ORDER BY incident').all() as { incident: number; events: number; hash: string }[];
    const events = db.prepare('SELECT incident, seq, kind, actor, happened_at, recorded_at, step, payload, amends, dedupe, prev_hash, hash FROM events ORDER BY incident, seq');
    const copied = await sql.begin(async (tx) => {
      const [n] = await tx<{ n: number }[]>`SELECT count(*)::integer AS n FROM incidents`;
      if ((n?.n ?? 0) > 0) throw new Error(`${shown} already holds ${n?.n} incidents: copy into an empty journal`);
      for (let i = 0; i < incidents.length; i += 1000) {
        const part = incidents.slice(i, i + 1000).map(({ slack_channel: _c, slack_thread: _t, ...r }) => r);
        await tx`INSERT INTO incidents ${tx(part, 'id', 'site', 'title', 'opened_by', 'opened_at', 'drill')}`;
      }
      let rows: RawEvent[] = [];
      let count = 0;
      const flush = async (): Promise<void> => {
        if (rows.length === 0) return;
        await tx`INSERT INTO events ${tx(rows, 'incident', 'seq', 'kind', 'actor', 'happened_at', 'recorded_at', 'step', 'payload', 'amends', 'dedupe', 'prev_hash', 'hash')}`;
        count += rows.length;
        rows = [];
      };
      for (const e of events.iterate() as IterableIterator<RawEvent>) {
        rows.push(e);
        if (rows.length === 1000) await flush();
      }
      await flush();
      for (let i = 0; i < kept.length; i += 1000) await tx`INSERT INTO heads ${tx(kept.slice(i, i + 1000), 'incident', 'events', 'hash')}`;
      const threads = incidents.filter((r) => r.slack_channel !== null && r.slack_thread !== null).map((r) => ({ incident: r.id, channel: r.slack_channel as string, thread: r.slack_thread as string }));
      for (let i = 0; i < threads.length; i += 1000) await tx`INSERT INTO threads ${tx(threads.slice(i, i + 1000), 'incident', 'channel', 'thread')}`;
      // New incidents go on after the copied ids.
      await tx`SELECT setval(pg_get_serial_sequence('incidents', 'id'), greatest((SELECT max(id) FROM incidents), 1), (SELECT count(*) > 0 FROM incidents))`;
      return count;
    });
    const target = await openPostgresJournal(to);
    let v;
    try {
      v = await target.verify();
    } finally {
      await target.close();
    }
    if (!v.ok) {
      io.stdout.write(`journal does NOT hold on the copy: incident #${v.incident}, event ${v.seq}: ${v.why}\n`);
      return 1;
    }
    const same = v.heads.size === source.heads.size && [...source.heads].every(([id, h]) => v.heads.get(id) === h);
    if (!same) {
      io.stdout.write('journal copy does NOT match its source: the heads differ\n');
      return 1;
    }
    io.stdout.write(`copied ${incidents.length} incident${incidents.length === 1 ? '' : 's'} and ${copied} events from ${from} to ${shown}; journal holds on the copy, every head the same as in ${from}\n`);
    return 0;
  } catch (err) {
    io.stderr.write(`seat journal copy: ${message(explainPg(err, shown, false))}; nothing was copied\n`);
    return 3;
  } finally {
    db.close();
    await sql.end({ timeout: 2 }).catch(() => undefined);
  }
}
