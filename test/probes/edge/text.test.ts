import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clean, cut, firstLine, firstSentence, fmtInt, fmtMiB, fmtNum, redact, redactStrings } from '../../../src/probes/edge/text.ts';

const ESC = '\x1b';
const SECRET = 'sk-seatbelt-test-0123456789abcdef';

test('clean: no escape sequence reaches a terminal', () => {
  const attacks = [
    `${ESC}[31mred${ESC}[0m`, // colour
    `${ESC}[2J${ESC}[H`, // clear screen, cursor home
    `${ESC}]0;pwned${ESC}\\`, // window title, ST-terminated
    `${ESC}]0;pwned\x07`, // window title, BEL-terminated
    `${ESC}]8;;http://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`, // hyperlink
    `${ESC}]52;c;cm0gLXJmIH4K\x07`, // write the clipboard
    `${ESC}P+q544e${ESC}\\`, // DCS query
    `\x9b31m`, // 8-bit CSI
    `${ESC}]0;unterminated`,
    `${ESC}(0`, // line-drawing charset
    `${ESC}c`, // reset the terminal
  ];
  for (const a of attacks) {
    const out = clean(`a${a}b`);
    assert.doesNotMatch(out, /[\x00-\x1f\x7f-\x9f]/, JSON.stringify(a));
    assert.ok(!out.includes('pwned') && !out.includes('evil.example') && !out.includes('cm0g'), JSON.stringify(out));
  }
  assert.equal(clean(`${ESC}[31mfallen off the bus${ESC}[0m`), 'fallen off the bus');
  assert.equal(clean(`${ESC}]8;;http://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`), 'click');
});

test('clean: a newline in a model id cannot forge a line in piped output', () => {
  for (const br of ['\n', '\r\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029']) {
    const id = `gen${br}seat gpu-a down OK`;
    const out = clean(id);
    assert.equal(out, 'gen seat gpu-a down OK', JSON.stringify(br));
  }
  // A bare CR would overwrite the start of the line on a terminal.
  assert.equal(clean('down\rup  '), 'down up');
});

test('clean: NUL, backspace, DEL, C1 and bidi overrides are dropped', () => {
  assert.equal(clean('a\x00b\x08c\x7fd\x80e'), 'abcde');
  assert.equal(clean('a\x85b'), 'a b'); // NEL is a line break
  assert.equal(clean('ok\u202edlrow\u202c'), 'okdlrow');
  for (const c of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
    assert.equal(clean(`x${c}y`), 'xy', c.codePointAt(0)!.toString(16));
  }
  assert.equal(clean('tabs\t\tand   spaces '), 'tabs and spaces');
  assert.equal(clean('lone \ud800 surrogate'), 'lone \ufffd surrogate');
  assert.equal(clean('emoji 🚀 and ünïcode stay'), 'emoji 🚀 and ünïcode stay');
});

test('clean: a 1 MB hostile string is cleaned in one pass (no catastrophic backtracking)', () => {
  const s = `${ESC}[`.repeat(100_000) + `${ESC}]`.repeat(100_000) + 'x'.repeat(600_000);
  const out = clean(s);
  assert.doesNotMatch(out, /\x1b/);
});

test('firstLine and firstSentence', () => {
  assert.equal(firstLine('\n  \r\n  first  \nsecond'), 'first');
  assert.equal(firstLine(''), '');
  assert.equal(firstSentence('NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver. Make sure that the latest driver is installed.'), 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver');
  assert.equal(firstSentence('No devices were found'), 'No devices were found');
});

test('cut: an ellipsis within max, never half a surrogate pair', () => {
  assert.equal(cut('short', 10), 'short');
  assert.equal(cut('abcdefghij', 5), 'abcd…');
  assert.equal(cut('abcdefghij', 5).length, 5);
  const s = 'abc🚀🚀🚀';
  for (let max = 1; max < s.length; max++) {
    const out = cut(s, max);
    assert.ok(out.length <= max);
    assert.doesNotMatch(out, /[\ud800-\udbff](?![\udc00-\udfff])/, `max ${max}: ${JSON.stringify(out)}`);
  }
  assert.equal(cut('abcd', 0), '');
});

test('number formatting', () => {
  assert.equal(fmtInt(1010), '1,010');
  assert.equal(fmtInt(81559.6), '81,560');
  assert.equal(fmtInt(-0.2), '0');
  assert.equal(fmtInt(Number.NaN), '?');
  assert.equal(fmtInt(Number.POSITIVE_INFINITY), '?');
  assert.equal(fmtNum(1234.56), '1,234.6');
  assert.equal(fmtNum(1234.56, 0), '1,235');
  assert.equal(fmtNum(87.5, 0), '88');
  assert.equal(fmtNum(12), '12');
  assert.equal(fmtNum(-0.01), '0');
  assert.equal(fmtMiB(81559), '81,559 MiB');
});

test('redact: every secret, longest first', () => {
  const long = `${SECRET}-admin`;
  assert.equal(redact(`a ${SECRET} b ${SECRET}`, [SECRET]), 'a [redacted] b [redacted]');
  // The longer key contains the shorter one: it goes whole, no "-admin" tail left behind.
  assert.equal(redact(`key ${long} end`, [SECRET, long]), 'key [redacted] end');
  assert.equal(redact('nothing here', [SECRET]), 'nothing here');
  assert.equal(redact('x', []), 'x');
  assert.equal(redact('', ['']), '');
});

test('redact: a secret cut short at the end of the text is redacted too', () => {
  assert.equal(redact(`Invalid key ${SECRET.slice(0, 12)}`, [SECRET]), 'Invalid key [redacted]');
  assert.equal(redact(`Invalid key ${SECRET.slice(0, 8)}`, [SECRET]), 'Invalid key [redacted]');
  assert.equal(redact(`Invalid key ${SECRET.slice(0, 20)}…`, [SECRET]), 'Invalid key [redacted]…');
  // Fewer than 8 characters says nothing of the key: kept ("sk-seat" is also just a prefix).
  assert.equal(redact(`Invalid key ${SECRET.slice(0, 7)}`, [SECRET]), `Invalid key ${SECRET.slice(0, 7)}`);
  // Only at the end: a prefix in the middle of a text is not the key cut short.
  assert.equal(redact(`${SECRET.slice(0, 10)} and more`, [SECRET]), `${SECRET.slice(0, 10)} and more`);
});

test('redact: redact before cut — cutting first leaves half a key that no longer matches', () => {
  const text = `upstream said: bad key ${SECRET} (rotate it)`;
  const cutFirst = cut(text, 40);
  assert.ok(cutFirst.includes(SECRET.slice(0, 10)), 'the attack: a cut keeps the start of the key');
  const right = cut(redact(text, [SECRET]), 40);
  assert.ok(!right.includes(SECRET.slice(0, 8)), right);
  // And redacting a text someone already cut still catches the tail.
  assert.ok(!redact(cutFirst, [SECRET]).includes(SECRET.slice(0, 8)));
});

test("redact: LiteLLM's key echoes are dropped, even for a key we do not hold", () => {
  const msg = 'Authentication Error, Invalid proxy server token passed. Received API Key = sk-...cdef, Key Hash (Token) =3f1c8e0a9b. Unable to find token in cache';
  assert.equal(redact(msg, []), 'Authentication Error, Invalid proxy server token passed. Unable to find token in cache');
});

test('redact: a percent-encoded secret in a URL is redacted', () => {
  const s = 'sk-a/b+c=d&e1234';
  assert.equal(redact(`http://x/?key=${encodeURIComponent(s)}`, [s]), 'http://x/?key=[redacted]');
});

test('redact: a secret under 4 characters only matches a whole value', () => {
  assert.equal(redact('up', ['u']), 'up');
  assert.equal(redact('u', ['u']), '[redacted]');
  // A short secret that is part of the marker cannot redact the marker.
  assert.equal(redact(`x ${SECRET}`, [SECRET, 'dact', 'act']), 'x [redacted]');
});

test('redactStrings: free text redacted, enum fields untouched', () => {
  const finding = {
    probe: 'gateway',
    status: 'up',
    reason: 'key_rejected',
    detail: `key rejected: ${SECRET}`,
    subject: { kind: 'gateway', key: 'u' },
    data: { kind: 'seat', models: ['gen', SECRET, 'u'], nested: [{ note: `x ${SECRET.slice(0, 9)}` }] },
    latencyMs: 12,
    ok: true,
    nothing: null,
  };
  const out = redactStrings(finding, [SECRET, 'u'], new Set(['probe', 'status', 'reason', 'kind']));
  assert.equal(out.status, 'up');
  assert.equal(out.reason, 'key_rejected');
  assert.equal(out.probe, 'gateway');
  assert.equal(out.subject.kind, 'gateway');
  assert.equal(out.detail, 'key rejected: [redacted]');
  assert.equal(out.subject.key, '[redacted]'); // equal to the one-letter secret as a whole value
  assert.deepEqual(out.data.models, ['gen', '[redacted]', '[redacted]']);
  assert.equal(out.data.nested[0]!.note, 'x [redacted]');
  assert.equal(out.latencyMs, 12);
  assert.equal(out.ok, true);
  assert.equal(out.nothing, null);
  assert.equal(finding.detail, `key rejected: ${SECRET}`, 'the input is not modified');
});

test('redactStrings: a cycle does not loop; non-plain objects are kept', () => {
  const a: Record<string, unknown> = { text: SECRET };
  a.self = a;
  const when = new Date(0);
  const out = redactStrings({ a, when }, [SECRET], new Set());
  assert.equal((out.a as { text: string }).text, '[redacted]');
  assert.equal(out.when, when);
});

test('a key split by invisible characters (zero-width space, soft hyphen, word joiner, BOM) is cleaned whole, then redacted', () => {
  const key = 'sk-seatbelt-0123456789abcdef';
  for (const hide of ['\u200b', '\u00ad', '\u2060', '\ufeff', '\u200d']) {
    const said = `upstream refused sk-seatbelt-${hide}0123456789abcdef today`;
    assert.equal(redact(clean(said), [key]), 'upstream refused [redacted] today', JSON.stringify(hide));
  }
});
