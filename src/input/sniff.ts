import { Readable } from 'node:stream';
import { InputError } from '../errors/index.js';
import type { InputFormat } from './input-source.js';

/** How far we look for the first non-blank byte before deciding the format. */
const MAX_PEEK_BYTES = 64 * 1024;

/** The start of an input, and a stream that still yields it from the beginning. */
export interface Peeked {
  head: Buffer;
  stream: Readable;
}

function firstContentByte(head: Buffer): number | undefined {
  let at = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (at < head.length && (head[at] === 0x20 || (head[at]! >= 0x09 && head[at]! <= 0x0d))) at += 1;
  return head[at];
}

/** Reads until the first non-blank byte (or MAX_PEEK_BYTES, or the end), without losing anything. */
export async function peekStart(source: Readable): Promise<Peeked> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < MAX_PEEK_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    chunks.push(chunk);
    size += chunk.length;
    if (firstContentByte(Buffer.concat(chunks)) !== undefined) break;
  }
  const head = Buffer.concat(chunks);
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield* chunks;
      if (done) return;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      }
    } finally {
      // Stopping early (a fatal row, Ctrl-C) must release the file, not leave it half read.
      await iterator.return?.();
    }
  }
  return { head, stream: Readable.from(replay(), { objectMode: false }) };
}

/** The first character that is not blank, a byte order mark aside. */
function firstContent(text: string): string | undefined {
  return /[^\s\uFEFF]/.exec(text)?.[0];
}

/**
 * Refuses inputs that are not text before the readers turn them into a screen of garbage rows:
 * binary files (xlsx, gzip), recognised by a NUL in the start of the input as decoded (UTF-16
 * text has NUL bytes, but no NUL characters).
 */
export function checkText(head: string): void {
  const nul = head.indexOf('\u0000');
  if (nul !== -1) {
    throw new InputError(
      'E_INPUT_BINARY',
      `input is not text (a NUL byte at offset ${nul}): expected CSV or JSON Lines; ` +
        'if it is a spreadsheet or a compressed file, export or decompress it first',
      { line: 1 },
    );
  }
}

/** The format of an input whose name does not tell: `{` (or `[`) starts JSON, anything else is CSV. */
export function sniffFormat(head: string): InputFormat {
  const first = firstContent(head);
  return first === '{' || first === '[' ? 'jsonl' : 'csv';
}

/** A JSON array is refused with the way out, rather than read as lines that are not objects. */
export function refuseJsonArray(head: string): void {
  if (firstContent(head) !== '[') return;
  throw new InputError(
    'E_INPUT_JSON_ARRAY',
    "input is a JSON array; give one object per line (JSON Lines), e.g. jq -c '.[]' input.json > input.jsonl",
    { line: 1 },
  );
}
