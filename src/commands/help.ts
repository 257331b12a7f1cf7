// Usage and per-command help, both written from the command table.
import type { CommandSpec, FlagSpec, FrontEnd } from './spec.ts';
import { CLI_GLOBAL_FLAGS } from './table.ts';

const PAD = 24;

function flagsOf(spec: CommandSpec, fe: FrontEnd): [string, FlagSpec][] {
  return Object.entries(spec.flags).filter(([, f]) => (f.frontEnds ?? spec.frontEnds).includes(fe));
}

function flagShown(name: string, flag: FlagSpec): string {
  return flag.type === 'string' ? `--${name} ${flag.value ?? 'VALUE'}` : `--${name}`;
}

/** `seat probe <site|all> [--only aliases,gpus,power] ...` */
export function synopsis(spec: CommandSpec, fe: FrontEnd): string {
  const prog = fe === 'slack' ? '/seat' : 'seat';
  const args = spec.args.map((a) => a.shown);
  const flags = flagsOf(spec, fe).map(([n, f]) => `[${flagShown(n, f)}]`);
  return [prog, spec.words[0], ...args, ...flags].join(' ');
}

/**
 * Every command of a front end, one line each. In the terminal's usage a command Slack lacks says
 * "terminal only", so a usage for Slack can still be cut from it line by line.
 */
export function usageFor(table: readonly CommandSpec[], fe: FrontEnd): string {
  const lines = table
    .filter((s) => s.frontEnds.includes(fe))
    .map((s) => {
      const line = synopsis(s, fe);
      if (fe === 'cli' && !s.frontEnds.includes('slack')) return `${line.padEnd(PAD - 1)} (terminal only: ${s.summary})`;
      return line;
    });
  lines.push(`free text (<text…>, <reason…>, <title…>): a flag counts wherever it stands; after -- every word is text (${fe === 'slack' ? '/seat' : 'seat'} note -- --force was not used)`);
  if (fe === 'cli') {
    const inv = CLI_GLOBAL_FLAGS.inventory;
    lines.push(`every command that reads the inventory takes --inventory ${inv.value} (or SEAT_INVENTORY); help and --version need none (terminal only)`);
  }
  return lines.map((l, i) => (i === 0 ? `usage: ${l}` : `       ${l}`)).join('\n');
}

/** `seat help probe`: what the command does, its arguments and flags. */
export function commandHelp(spec: CommandSpec, fe: FrontEnd): string {
  const out = [`usage: ${synopsis(spec, fe)}`, '', spec.summary];
  const others = spec.words.slice(1);
  if (others.length > 0) out.push(`also spelt: ${others.join(', ')}`);
  const args: [string, string][] = spec.args.map((a) => [a.shown, `${a.help}${a.required ? '' : ' (optional)'}`]);
  const flags: [string, string][] = flagsOf(spec, fe).map(([n, f]) => [flagShown(n, f), `${f.help}${f.expect ? ` (${f.expect})` : ''}`]);
  if (fe === 'cli' && spec.needsInventory) flags.push([`--inventory ${CLI_GLOBAL_FLAGS.inventory.value}`, CLI_GLOBAL_FLAGS.inventory.help]);
  flags.push(['-h, --help', 'this help']);
  const width = Math.max(...[...args, ...flags].map(([left]) => left.length)) + 2;
  const rows = (list: [string, string][]): string[] => list.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
  if (args.length > 0) out.push('', 'arguments:', ...rows(args));
  out.push('', 'options:', ...rows(flags));
  const text = freeTextNote(spec, fe);
  if (text.length > 0) out.push('', ...text);
  if (fe === 'cli' && !spec.frontEnds.includes('slack')) out.push('', 'terminal only: Slack has no such command.');
  return out.join('\n');
}

/** How a free-text argument reads: flags anywhere in it; a text that starts with "-" after `--`. */
function freeTextNote(spec: CommandSpec, fe: FrontEnd): string[] {
  const text = spec.args.find((a) => a.kind === 'text');
  if (!text) return [];
  const prog = fe === 'slack' ? '/seat' : 'seat';
  const fixed = spec.args.filter((a) => a.kind !== 'text').map((a) => a.shown);
  const flags = flagsOf(spec, fe).map(([n, f]) => `[${flagShown(n, f)}]`);
  const lines = [`${text.shown}: a flag is read as a flag wherever it stands among the words.`];
  lines.push(`  Text that starts with "-" goes after --: ${[prog, spec.words[0], ...fixed, ...flags, '--', '--force was not used'].join(' ')}`);
  if (fe === 'slack') lines.push('  A word in quotes ("--force" or \'a b\') is one word of text, never a flag.');
  return lines;
}
