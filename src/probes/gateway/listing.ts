// A key's /v1/models: every model id of `{"data":[{"id":…},…]}`. A listing up to HOLD_BYTES is held
// and read whole with JSON.parse: a byte scan runs in a process that has just started, before V8 has
// compiled it, at some 100 ns a byte (25 ms for the 220 KB of 3,000 models, on the path of every alias
// request), where JSON.parse reads the same in 4 ms. A longer one is read as it streams, every id handed
// on as it is seen and nothing else kept: a listing of 130,000 models (10 MB and more) is counted whole
// at the memory cost of one chunk, where holding and parsing it would cost ten times its size.
//
// Bytes, not characters: every structural character of JSON is ASCII, and no byte of a multi-byte
// UTF-8 sequence is below 0x80, so a byte scan cannot be misled by what a string holds.
//
// For a valid listing both roads give the ids JSON.parse gives (test/probes/hostile.test.ts holds them
// to it); the scan is looser with a malformed one (see ModelListScanner).
import { concat } from '../edge/capped.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const BOM = [0xef, 0xbb, 0xbf];

/** Bytes kept of an object key we look at ("data", "id"): every spelling of "data" fits, each letter
 * escaped (\u0064…) included; any longer key is neither. */
const KEY_BYTES = 24;
/** Bytes kept of a model id: an inventory name is at most 63 characters; a longer id is shown cut. */
export const ID_BYTES = 1024;
/** A listing up to this size is held and parsed whole; a longer one is scanned as it streams. */
export const HOLD_BYTES = 1024 * 1024;
/** Nesting a streamed listing may have: a model list needs 3 levels; deeper than this it is not one
 * (each level costs a frame: 64 MiB of `[` would otherwise cost gigabytes). */
export const MAX_DEPTH = 512;

interface Frame {
  array: boolean;
  /** For an object: the next string is a key. */
  expectKey: boolean;
  /** For an object: the key whose value comes next, when it is one we look at; else null. */
  key: string | null;
}

/**
 * Feed it the body with `write`, then call `end()`: true when the body was one JSON object with a
 * `data` array, false for anything else (not JSON, no `data` array, cut short). `onId` gets each
 * string `id` of an object in `data`, decoded, as it is read (a body held whole: in `end()`); an id
 * over ID_BYTES comes cut, ending in `…`. Read as it streams (over HOLD_BYTES), the structure is checked
 * (brackets, keys and values in turn, the last "id" of a model), not every token's grammar: a bad
 * number, a stray byte or two `data` keys there are read past, not refused as JSON.parse would; and a
 * listing nested deeper than MAX_DEPTH is not a model list.
 */
export class ModelListScanner {
  /** The body so far, while it is within `holdBytes`; null once it is scanned as it streams. */
  private held: Uint8Array[] | null = [];
  private heldBytes = 0;
  /** What end() found of a held body. */
  private heldOk: boolean | null = null;
  private readonly stack: Frame[] = [];
  private inString = false;
  private escaped = false;
  /** What the string being read is: a key we look at, the id of a model, or neither. */
  private collecting: 'key' | 'id' | null = null;
  private isKey = false;
  private buf = new Uint8Array(ID_BYTES);
  /** The id of the model object being read, handed on when it closes: as JSON.parse, the last "id" counts. */
  private modelId: string | null = null;
  private len = 0;
  private truncated = false;
  private started = false;
  private bomAt = 0;
  private rootDone = false;
  private sawData = false;
  private dataClosed = false;
  private bad = false;

  constructor(
    private readonly onId: (id: string) => void,
    /** Held and parsed whole up to this many bytes (0: always scanned as it streams). */
    private readonly holdBytes = HOLD_BYTES,
  ) {}

  write(chunk: Uint8Array): void {
    if (this.held !== null) {
      if (this.heldBytes + chunk.byteLength <= this.holdBytes) {
        this.held.push(chunk);
        this.heldBytes += chunk.byteLength;
        return;
      }
      const held = this.held;
      this.held = null;
      for (const c of held) this.scan(c);
    }
    this.scan(chunk);
  }

  /** True when what was written is a whole JSON object with a `data` array (the same answer each call). */
  end(): boolean {
    if (this.held !== null) this.heldOk = this.parseHeld();
    if (this.heldOk !== null) return this.heldOk;
    return !this.bad && this.rootDone && this.sawData && this.dataClosed && !this.inString;
  }

  /** The held body read whole: the ids JSON.parse gives, each cut as the scan cuts it. */
  private parseHeld(): boolean {
    const held = this.held!;
    this.held = null;
    let body: unknown;
    try {
      // TextDecoder drops a leading byte order mark, as the scan skips one.
      body = JSON.parse(UTF8.decode(concat(held, this.heldBytes)));
    } catch {
      return false;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
    const data = (body as { data?: unknown }).data;
    if (!Array.isArray(data)) return false;
    for (const m of data as unknown[]) {
      const id = m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as { id?: unknown }).id : undefined;
      if (typeof id === 'string') this.onId(cutId(id));
    }
    return true;
  }

  private scan(chunk: Uint8Array): void {
    if (this.bad) return;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.endString();
          continue;
        }
        if (this.collecting !== null) this.keep(b);
        continue;
      }
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
      if (this.rootDone) return this.fail();
      const top = this.stack[this.stack.length - 1];
      if (!this.started) {
        // A UTF-8 byte order mark before the object, as JSON.parse after TextDecoder would allow.
        if (this.bomAt < 3 && b === BOM[this.bomAt]) {
          this.bomAt += 1;
          continue;
        }
        if (b !== OPEN_OBJECT || (this.bomAt > 0 && this.bomAt < 3)) return this.fail();
        this.started = true;
      }
      switch (b) {
        case QUOTE:
          this.startString(top);
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY: {
          const array = b === OPEN_ARRAY;
          if (array && this.isDataArrayOpening()) this.sawData = true;
          if (top && !top.array && top.expectKey) return this.fail();
          if (this.stack.length >= MAX_DEPTH) return this.fail();
          this.noId();
          this.stack.push({ array, expectKey: !array, key: null });
          if (this.inModel()) this.modelId = null;
          break;
        }
        case CLOSE_OBJECT:
        case CLOSE_ARRAY: {
          if (!top || top.array !== (b === CLOSE_ARRAY)) return this.fail();
          if (top.array && this.isDataArray()) this.dataClosed = true;
          if (!top.array && this.inModel() && this.modelId !== null) {
            this.onId(this.modelId);
            this.modelId = null;
          }
          this.stack.pop();
          if (this.stack.length === 0) this.rootDone = true;
          break;
        }
        case COMMA:
          if (!top) return this.fail();
          if (!top.array) {
            top.expectKey = true;
            top.key = null;
          }
          break;
        case COLON:
          if (!top || top.array) return this.fail();
          break;
        default:
          // A number, true, false or null: nothing of it is kept.
          if (!top || (!top.array && top.expectKey)) return this.fail();
          this.noId();
      }
    }
  }

  private fail(): void {
    this.bad = true;
  }

  /** A value that is not a string is starting: when it is a model's "id", that model has no id (so far). */
  private noId(): void {
    if (this.modelId !== null && this.inModel() && this.stack[2]!.key === 'id') this.modelId = null;
  }

  /** The array about to open is the value of the root object's `data`. */
  private isDataArrayOpening(): boolean {
    const root = this.stack[0];
    return this.stack.length === 1 && root !== undefined && !root.array && root.key === 'data';
  }

  /** The innermost container is the root object's `data` array. */
  private isDataArray(): boolean {
    const root = this.stack[0];
    return this.stack.length === 2 && root !== undefined && !root.array && root.key === 'data' && this.stack[1]!.array;
  }

  /** The innermost container is an object in the `data` array. */
  private inModel(): boolean {
    return this.stack.length === 3 && this.stack[0]!.key === 'data' && this.stack[1]!.array && !this.stack[2]!.array;
  }

  private startString(top: Frame | undefined): void {
    this.inString = true;
    this.escaped = false;
    this.len = 0;
    this.truncated = false;
    this.isKey = top !== undefined && !top.array && top.expectKey;
    const depth = this.stack.length;
    if (this.isKey) this.collecting = depth === 1 || depth === 3 ? 'key' : null;
    else this.collecting = this.inModel() && top?.key === 'id' ? 'id' : null;
  }

  private keep(b: number): void {
    const max = this.collecting === 'key' ? KEY_BYTES : ID_BYTES;
    if (this.len < max) this.buf[this.len++] = b;
    else this.truncated = true;
  }

  private endString(): void {
    this.inString = false;
    const top = this.stack[this.stack.length - 1];
    if (this.isKey) {
      if (top) {
        top.expectKey = false;
        top.key = this.collecting === 'key' && !this.truncated ? decode(this.buf.subarray(0, this.len)) : null;
      }
    } else if (this.collecting === 'id') {
      const id = decode(this.buf.subarray(0, this.len));
      this.modelId = this.truncated ? `${id}…` : id;
    }
    this.collecting = null;
  }
}

const UTF8 = new TextDecoder();
/** For a string inside the JSON: a leading U+FEFF there is part of it (TextDecoder drops it by default). */
const UTF8_AS_IS = new TextDecoder('utf-8', { ignoreBOM: true });
const ENCODE = new TextEncoder();

/** An id held whole, cut to ID_BYTES of UTF-8 as the scan would cut it. The scan counts an escape's bytes
 * as written, and an id it cuts mid-escape comes with its escapes as written: only an id over ID_BYTES / 6
 * characters can differ, and no inventory name (63 at most) is that long. */
function cutId(id: string): string {
  if (id.length * 3 <= ID_BYTES) return id;
  const bytes = ENCODE.encode(id);
  return bytes.byteLength <= ID_BYTES ? id : `${UTF8.decode(bytes.subarray(0, ID_BYTES))}…`;
}

/** A JSON string's content, unescaped; cut mid-escape (or not valid JSON), its bytes as they are. */
function decode(raw: Uint8Array): string {
  const text = UTF8_AS_IS.decode(raw);
  // No escape: JSON.parse would give the same text back (or fail on a raw control character, and
  // the text is kept as it is then too).
  if (!raw.includes(BACKSLASH)) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

