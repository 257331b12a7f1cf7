// A runbook step's Markdown as Slack mrkdwn, through marked's lexer (the parser the runbooks are
// read with): paragraphs joined onto one line (Slack keeps every line break), bold, italics, code,
// links and lists in Slack's own syntax, indented code fenced; every piece of text escaped.
import { Lexer, type Token, type Tokens } from 'marked';
import { esc } from './mrkdwn.ts';

function inline(tokens: readonly Token[] | undefined): string {
  return (tokens ?? []).map(inlineToken).join('');
}

function inlineToken(t: Token): string {
  switch (t.type) {
    case 'text': {
      const x = t as Tokens.Text;
      return x.tokens ? inline(x.tokens) : esc(x.text.replace(/\s*\n\s*/g, ' '));
    }
    case 'strong':
      return `*${inline((t as Tokens.Strong).tokens)}*`;
    case 'em':
      return `_${inline((t as Tokens.Em).tokens)}_`;
    case 'del':
      return `~${inline((t as Tokens.Del).tokens)}~`;
    case 'codespan':
      return `\`${esc((t as Tokens.Codespan).text).replace(/`/g, "'")}\``;
    case 'br':
      return '\n';
    case 'link': {
      const l = t as Tokens.Link;
      const label = inline(l.tokens) || esc(l.href);
      return /^(https?|mailto):[^|<>\s]*$/.test(l.href) ? `<${esc(l.href)}|${label}>` : label;
    }
    case 'escape':
      return esc((t as Tokens.Escape).text);
    case 'image':
      return esc((t as Tokens.Image).text);
    default:
      return esc(t.raw.replace(/\s*\n\s*/g, ' '));
  }
}

function block(t: Token, indent: string): string | null {
  switch (t.type) {
    case 'space':
      return null;
    case 'paragraph':
      return indent + inline((t as Tokens.Paragraph).tokens);
    case 'heading':
      return `${indent}*${inline((t as Tokens.Heading).tokens)}*`;
    case 'code':
      return `\`\`\`\n${esc((t as Tokens.Code).text)}\n\`\`\``;
    case 'list': {
      const l = t as Tokens.List;
      const start = typeof l.start === 'number' ? l.start : 1;
      return l.items.map((item, i) => `${indent}${l.ordered ? `${start + i}.` : '•'} ${listItem(item, `${indent}    `)}`).join('\n');
    }
    case 'blockquote':
      return blocks((t as Tokens.Blockquote).tokens, '')
        .split('\n')
        .map((line) => `${indent}> ${line}`)
        .join('\n');
    case 'hr':
      return `${indent}———`;
    case 'table':
      return `\`\`\`\n${esc(t.raw.trimEnd())}\n\`\`\``;
    case 'text': {
      const x = t as Tokens.Text;
      return indent + (x.tokens ? inline(x.tokens) : esc(x.text.replace(/\s*\n\s*/g, ' ')));
    }
    default:
      return indent + esc(t.raw.trim());
  }
}

function listItem(item: Tokens.ListItem, indent: string): string {
  const parts = item.tokens.map((t, i) => block(t, i === 0 ? '' : indent)).filter((p): p is string => p !== null);
  return parts.join('\n');
}

function blocks(tokens: readonly Token[], indent: string): string {
  return tokens
    .map((t) => block(t, indent))
    .filter((b): b is string => b !== null && b.trim() !== '')
    .join('\n\n');
}

export function markdownToMrkdwn(md: string): string {
  return blocks(new Lexer().lex(md), '');
}
