// Reading the inventory file without ever hanging on it. Opening a FIFO blocks until a writer
// comes, and a thread of Node's pool stuck in open() also holds up process.exit (the first
// SIGTERM seemed swallowed): so look before opening, open non-blocking, and read under a cap and
// a timeout.
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';

export const MAX_INVENTORY_BYTES = 8 * 1024 * 1024;
export const READ_TIMEOUT_MS = 5000;

export type ReadResult = { ok: true; text: string } | { ok: false; error: string };

export interface ReadOptions {
  maxBytes?: number;
  timeoutMs?: number;
  /** The bytes of a checked file; a test can hand in one that never answers. */
  readBytes?: (path: string, maxBytes: number) => Promise<Uint8Array>;
}

class Refusal extends Error {}

function limit(maxBytes: number): string {
  return maxBytes >= 2 ** 20 ? `${maxBytes} bytes (${Math.floor(maxBytes / 2 ** 20)} MiB)` : `${maxBytes} bytes`;
}

function kind(s: Stats): string | null {
  if (s.isFile()) return null;
  if (s.isFIFO()) return 'a named pipe (FIFO)';
  if (s.isDirectory()) return 'a directory';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  return 'not a file';
}

function checkStats(s: Stats, maxBytes: number): void {
  const what = kind(s);
  if (what) throw new Refusal(`not a regular file: ${what}; an inventory is a YAML file`);
  if (s.size > maxBytes) throw new Refusal(`inventory is ${s.size} bytes; the most is ${limit(maxBytes)}`);
}

/** stat, open O_NONBLOCK, fstat again (the path may have changed in between), read at most maxBytes. */
export async function readRegularFile(path: string, maxBytes: number): Promise<Uint8Array> {
  checkStats(await stat(path), maxBytes);
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    checkStats(await file.stat(), maxBytes);
    const buf = Buffer.alloc(maxBytes + 1);
    let got = 0;
    for (;;) {
      const { bytesRead } = await file.read(buf, got, buf.length - got, null);
      if (bytesRead === 0) break;
      got += bytesRead;
      // A file that grows while read (or a /proc file that says size 0) is still capped.
      if (got > maxBytes) throw new Refusal(`inventory is more than ${maxBytes} bytes; the most is ${limit(maxBytes)}`);
    }
    return buf.subarray(0, got);
  } finally {
    await file.close();
  }
}

const ERRNO: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'not a regular file: a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EAGAIN: 'no data ready (not a regular file?)',
};

/** The inventory's text, or one line saying why not. Never throws, never waits past the timeout. */
export async function readInventoryText(path: string, o: ReadOptions = {}): Promise<ReadResult> {
  const maxBytes = o.maxBytes ?? MAX_INVENTORY_BYTES;
  const timeoutMs = o.timeoutMs ?? READ_TIMEOUT_MS;
  const read = o.readBytes ?? readRegularFile;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    const bytes = await Promise.race([read(path, maxBytes), late]);
    if (bytes === 'late') return { ok: false, error: `${path}: cannot read the inventory: no data within ${timeoutMs} ms` };
    return decode(path, bytes);
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, error: `${path}: ${err.message}` };
    const code = (err as NodeJS.ErrnoException).code;
    const why = code ? `${ERRNO[code] ?? 'error'} (${code})` : 'an unexpected error';
    return { ok: false, error: `${path}: cannot read the inventory: ${why}` };
  } finally {
    clearTimeout(timer);
  }
}

/** UTF-8 text or a refusal that quotes nothing of the content. */
export function decode(path: string, bytes: Uint8Array): ReadResult {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: `${path}: not a text file (not UTF-8): an inventory is YAML text` };
  }
  return { ok: true, text };
}
