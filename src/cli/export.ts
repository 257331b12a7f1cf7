// `seat export [incident] [--format md|html] [-o FILE]`: the incident's postmortem from the journal,
// checked first (the document carries the chain's head hash, so the journal must verify), written
// to FILE (mode 0644, never over a directory) or to standard output.
import { open, stat } from 'node:fs/promises';
import type { ExportCommand } from '../commands/table.ts';
import { exportDocument } from '../postmortem/document.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { withService } from './incident.ts';
import type { CliIo, ExitCode } from './io.ts';

/** `fleet` null: no inventory was given; the postmortem is then not put beside a fleet. */
export async function exportToTerminal(cmd: ExportCommand, fleet: Fleet | null, io: CliIo, inventoryPath: string | null): Promise<ExitCode> {
  return withService(fleet, io, inventoryPath, async (service) => {
    const incident = await service.resolve(cmd.incident);
    if ('error' in incident) {
      io.stderr.write(`seat: ${incident.error}\n`);
      return 2;
    }
    const r = await exportDocument(service, incident.id, cmd.format, (io.now ?? (() => new Date()))(), fleet ?? undefined);
    if (!r.ok) {
      io.stderr.write(`seat: ${r.error}\n`);
      return r.code;
    }
    if (cmd.output === undefined) {
      io.stdout.write(r.doc);
      return 0;
    }
    const wrote = await writeDocument(cmd.output, r.doc);
    if ('error' in wrote) {
      io.stderr.write(`seat: ${wrote.error}\n`);
      return 2;
    }
    io.stdout.write(`wrote the postmortem of #${incident.id} to ${cmd.output} (${cmd.format === 'html' ? 'HTML' : 'Markdown'}, ${wrote.bytes.toLocaleString('en-US')} bytes; journal head ${r.head.slice(0, 12)})\n`);
    return 0;
  });
}

/** Writes the file, created with mode 0644 (a postmortem is for sharing); a directory is refused, not written into. */
export async function writeDocument(path: string, doc: string): Promise<{ bytes: number } | { error: string }> {
  try {
    const s = await stat(path);
    if (s.isDirectory()) return { error: `${path} is a directory: name the file to write, not a folder (-o postmortem.md)` };
    if (!s.isFile()) return { error: `${path} is not a regular file: refusing to write to it` };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return { error: `${path}: cannot look at it (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  const bytes = Buffer.from(doc, 'utf8');
  try {
    let created = false;
    let fh;
    try {
      fh = await open(path, 'wx', 0o644);
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      fh = await open(path, 'w');
    }
    try {
      // The umask may have taken bits off: a new postmortem is 0644 as promised.
      if (created) await fh.chmod(0o644);
      await fh.writeFile(bytes);
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { error: `${path}: cannot write it${code ? ` (${code})` : ''}` };
  }
  return { bytes: bytes.length };
}
