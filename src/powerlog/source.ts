// Where a power log's bytes come from: a regular file, or `-` for standard input. A named pipe is
// refused before it is opened (opening one blocks until a writer comes): pipe it into `-` instead.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

export type Source = { ok: true; chunks: AsyncIterable<Uint8Array | string>; label: string } | { ok: false; error: string };

export async function openPowerLog(path: string, stdin: NodeJS.ReadableStream | undefined): Promise<Source> {
  if (path === '-') {
    if (!stdin) return { ok: false, error: '-: no standard input to read' };
    return { ok: true, chunks: stdin as AsyncIterable<Uint8Array | string>, label: 'standard input' };
  }
  try {
    const s = await stat(path);
    if (s.isDirectory()) return { ok: false, error: `${path}: a directory, not a power log file` };
    if (!s.isFile()) return { ok: false, error: `${path}: not a regular file (for a pipe, use: … | seat powerlog -)` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, error: `${path}: no such file` };
    if (code === 'EACCES') return { ok: false, error: `${path}: permission denied` };
    return { ok: false, error: `${path}: cannot read it${code ? ` (${code})` : ''}` };
  }
  return { ok: true, chunks: createReadStream(path), label: path };
}
