// A PATH the way a fresh machine has it, without `ping`: a folder of links to only the tools a test
// needs (ip for `ip netns exec`, a shell and the coreutils the drill's stand-ins use).
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPath } from '../../drills/tools.ts';

const TOOLS = ['bash', 'sh', 'cat', 'ip', 'tr', 'grep', 'paste', 'sleep', 'setpriv', 'env'];

export interface NoPingPath {
  /** The folder: use it as PATH. */
  dir: string;
  remove(): void;
}

export function pathWithoutPing(): NoPingPath {
  const dir = mkdtempSync(join(tmpdir(), 'seatbelt-noping-'));
  for (const t of TOOLS) {
    const at = onPath(t);
    if (at) symlinkSync(at, join(dir, t));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
