import { MAX_RECORD_BYTES } from './record-size.js';

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
/** The first bytes of the byte order marks csv-parse strips (UTF-8's, UTF-16LE's). */
const BOM_LEADS = [0xef, 0xff];

/**
 * The longest line split here, in bytes or characters (at most 3 bytes each in UTF-8): csv-parse
 * decides at its record limit (MAX_RECORD_BYTES), so a line anywhere near it is left to csv-parse.
 */
const PLAIN_LINE_LIMIT = MAX_RECORD_BYTES / 4;

type Text = Buffer | string;

/** What csv-parse does with a string: it reads its UTF-8 bytes. */
const bytesOf = (text: Text) => (typeof text === 'string' ? Buffer.from(text, 'utf8') : text);

function joined(before: Text, after: Text): Text {
  if (typeof before === 'string' && typeof after === 'string') return before + after;
  return Buffer.concat([bytesOf(before), bytesOf(after)]);
}

/**
 * Whether a carriage return in the text is other than a CRLF line end's (a lone one ends a record
 * where no line break is): one at the very end may be a CRLF's, its LF in the next chunk.
 */
function loneCarriageReturn(text: Text): boolean {
  if (typeof text === 'string') {
    for (let at = text.indexOf('\r'); at !== -1; at = text.indexOf('\r', at + 1)) {
      if (at + 1 < text.length && text.charCodeAt(at + 1) !== LF) return true;
    }
    return false;
  }
  for (let at = text.indexOf(CR); at !== -1; at = text.indexOf(CR, at + 1)) if (at + 1 < text.length && text[at + 1] !== LF) return true;
  return false;
}

/** Whether the text holds what csv-parse reads across lines (a lone carriage return) or would re-encode (a lone surrogate). */
function notPlain(text: Text): boolean {
  if (typeof text !== 'string') return loneCarriageReturn(text);
  return loneCarriageReturn(text) || !(text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** A quoted field from its opening quote at `open`: its text (doubled quotes made one) and where it ends, or undefined when the line does not close it. */
function quotedField(line: string, open: number): { text: string; after: number } | undefined {
  let text = '';
  for (let from = open + 1; ;) {
    const close = line.indexOf('"', from);
    if (close === -1) return undefined;
    if (line.charCodeAt(close + 1) !== QUOTE) return { text: text + line.slice(from, close), after: close + 1 };
    text += line.slice(from, close + 1);
    from = close + 2;
  }
}

/**
 * The fields of a line that has a quote, when every one is either unquoted without a quote or
 * quoted whole (`"a, b"`, `"say ""hi"""`) and closed on this line: RFC 4180, which csv-parse reads
 * alike. Anything else (a quote inside an unquoted field, text after a closing quote, a field
 * that goes on to the next line) is csv-parse's to read, by its relaxed rules: undefined.
 */
function quotedLine(line: string, delimiter: string): string[] | undefined {
  const fields: string[] = [];
  for (let at = 0; ;) {
    if (line.charCodeAt(at) === QUOTE) {
      const field = quotedField(line, at);
      if (field === undefined) return undefined;
      fields.push(field.text);
      if (field.after === line.length) return fields;
      if (line[field.after] !== delimiter) return undefined;
      at = field.after + 1;
    } else {
      const next = line.indexOf(delimiter, at);
      const field = line.slice(at, next === -1 ? line.length : next);
      if (field.includes('"')) return undefined;
      fields.push(field);
      if (next === -1) return fields;
      at = next + 1;
    }
  }
}

/** Where a line's text ends: before its CR when it ends with CRLF (or, the file's last, with a CR). */
function textEnd(data: Text, start: number, end: number): number {
  const code = typeof data === 'string' ? data.charCodeAt(end - 1) : data[end - 1];
  return end > start && code === CR ? end - 1 : end;
}

const from = (text: Text, start: number): Text => (typeof text === 'string' ? text.slice(start) : text.subarray(start));

const mayStartWithBom = (text: Text) =>
  typeof text === 'string' ? text.charCodeAt(0) === 0xfeff : text.length > 0 && BOM_LEADS.includes(text[0]!);

/**
 * CSV text without a lone carriage return, whose quotes (if any) each enclose a whole field on
 * one line, is lines of fields split at the delimiter (at LF or CRLF): all that
 * csv-parse does with it under the reader's options (no trimming, comments, casts or column
 * checks), at a fraction of its cost, which was most of reading a row. Chunks are split here while
 * they are that plain, a record out of each whole line; from the first that is not (or that could
 * start with a byte order mark), the text not yet split is handed back, starting at a record, for
 * csv-parse to read to the end. Records come out as csv-parse makes them: a blank line is one empty
 * field, and the last line needs no line break.
 */
export class PlainLines {
  readonly #delimiter: string;
  /** The text after the last line break: the start of a record still to come. */
  #carry: Text | undefined;
  #splitAny = false;

  /** For a single ASCII delimiter other than a quote or a line end (plainLines). */
  constructor(delimiter: string) {
    this.#delimiter = delimiter;
  }

  /** Whether any record was split here: csv-parse, taking over, then starts mid-file (no byte order mark to strip). */
  get splitAny(): boolean {
    return this.#splitAny;
  }

  /** Pushes the records of the chunk's whole lines into `into`; returns the text not split once the text is not plain. */
  take(chunk: Text, into: string[][]): Text | undefined {
    const data = this.#carry === undefined ? chunk : joined(this.#carry, chunk);
    this.#carry = undefined;
    if ((!this.#splitAny && mayStartWithBom(data)) || notPlain(data)) return data;
    const last = typeof data === 'string' ? data.lastIndexOf('\n') : data.lastIndexOf(LF);
    for (let start = 0; start <= last;) {
      const end = typeof data === 'string' ? data.indexOf('\n', start) : data.indexOf(LF, start);
      if (end - start >= PLAIN_LINE_LIMIT || !this.#push(data, start, textEnd(data, start, end), into)) return from(data, start);
      start = end + 1;
    }
    const rest = from(data, last + 1);
    if (rest.length >= PLAIN_LINE_LIMIT) return rest;
    if (rest.length > 0) this.#carry = rest;
    return undefined;
  }

  /** At the end of the text: the last line's record when it is plain, else that line for csv-parse. */
  end(into: string[][]): Text | undefined {
    const data = this.#carry;
    this.#carry = undefined;
    if (data === undefined) return undefined;
    if (!this.#splitAny && mayStartWithBom(data)) return data;
    return this.#push(data, 0, textEnd(data, 0, data.length), into) ? undefined : data;
  }

  /** Pushes the line's record; false when it has a quote csv-parse must read (quotedLine). */
  #push(data: Text, start: number, end: number, into: string[][]): boolean {
    const line = typeof data === 'string' ? data.slice(start, end) : data.toString('utf8', start, end);
    const fields = line.includes('"') ? quotedLine(line, this.#delimiter) : line.split(this.#delimiter);
    if (fields === undefined) return false;
    into.push(fields);
    this.#splitAny = true;
    return true;
  }
}

/** A splitter for text with this delimiter whose records start on line 1, or undefined when csv-parse must read all of it. */
export function plainLines(delimiter: string, firstLine: number): PlainLines | undefined {
  const code = delimiter.charCodeAt(0);
  if (firstLine !== 1 || delimiter.length !== 1 || code >= 0x80 || code === QUOTE || code === CR || code === LF) return undefined;
  return new PlainLines(delimiter);
}
