import type { Chunk } from '../model/chunk.js';

/**
 * The text of a 200 answer, already parsed once into its chunks: deduplication remembers where a
 * chunk is in it rather than the parsed chunk. A parsed chunk is some thirty objects that live
 * for 5,000 answers, long enough to be copied out of the young generation and collected in the
 * old: that collection cost more than the rest of deduplication. A body is one string, and
 * bodies leave memory in the order they came, since answers that are never reused are evicted in
 * that order (a reused answer is parsed and remembered as a chunk from then on).
 */
export interface ResponseText {
  body: string;
  /** Where each chunk begins and ends in `body` (start, end, start, end...), found on first use. */
  spans?: number[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** The index of the quote that closes the string opened at `open` (one not escaped by a backslash). */
function closingQuote(body: string, open: number): number {
  // indexOf skips the string's text at native speed: most of an answer is inside strings.
  for (let close = body.indexOf('"', open + 1); close !== -1; close = body.indexOf('"', close + 1)) {
    let backslashes = 0;
    while (body.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return close;
  }
  return body.length;
}

/**
 * Where each element of a JSON array's text begins and ends, or the whole text when it is an
 * object (the bare chunk interpretResponse also takes). The text is valid JSON, parsed before:
 * only strings, brackets and top-level commas need telling apart.
 */
function elementSpans(body: string): number[] {
  let at = 0;
  while (at < body.length && isSpace(body.charCodeAt(at))) at += 1;
  if (body.charCodeAt(at) === OPEN_BRACE) return [at, body.length];
  const spans: number[] = [];
  let depth = 0;
  let start = -1;
  for (let i = at; i < body.length; i++) {
    const code = body.charCodeAt(i);
    if (depth === 1 && start < 0 && !isSpace(code) && code !== COMMA && code !== CLOSE_BRACKET) start = i;
    if (code === QUOTE) {
      i = closingQuote(body, i);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) {
        if (start >= 0) spans.push(start, i);
        break;
      }
    } else if (code === COMMA && depth === 1) {
      spans.push(start, i);
      start = -1;
    }
  }
  return spans;
}

/** The chunk at `index` of the answer, parsed afresh from its text: equal to the one parsed with the whole body. */
export function chunkAt(text: ResponseText, index: number): Chunk {
  text.spans ??= elementSpans(text.body);
  return JSON.parse(text.body.slice(text.spans[2 * index], text.spans[2 * index + 1])) as Chunk;
}
