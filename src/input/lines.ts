import type { Readable } from 'node:stream';

const LF = 0x0a;
const CR = 0x0d;

export interface Line {
  /** Decoded as UTF-8; bytes that are not UTF-8 come out as U+FFFD (see encoding.ts). */
  text: string;
  /** 1-based physical line number. */
  number: number;
}

/**
 * The lines of a byte stream, split on LF, CRLF and CR alike (as readline with crlfDelay
 * Infinity), with no line longer than `maxBytes`: past it, `tooLong(lineNumber)` is thrown
 * before the line is held whole. We split bytes rather than use readline, which has no cap and
 * fails with an uncaught RangeError at V8's string limit. Splitting before decoding is safe:
 * CR and LF bytes never occur inside a multi-byte UTF-8 character.
 */
export async function* splitLines(
  source: Readable,
  maxBytes: number,
  tooLong: (lineNumber: number) => Error,
  /** Set to the bytes of the stream up to the end of the line last yielded, for a progress bar. */
  position?: { bytes: number },
): AsyncGenerator<Line> {
  let number = 0;
  // The bytes of the current line from earlier chunks; only lines that span chunks are copied.
  let pieces: Buffer[] = [];
  let pending = 0;
  let afterCr = false;
  // Bytes of the chunks before the current one.
  let base = 0;

  const take = (chunk: Buffer, start: number, end: number, endOffset: number): Line => {
    if (position) position.bytes = endOffset;
    if (pending + end - start > maxBytes) throw tooLong(number + 1);
    number += 1;
    let text: string;
    if (pieces.length === 0) {
      text = chunk.toString('utf8', start, end);
    } else {
      pieces.push(chunk.subarray(start, end));
      text = Buffer.concat(pieces).toString('utf8');
      pieces = [];
      pending = 0;
    }
    return { text, number };
  };

  for await (const data of source as AsyncIterable<Buffer | string>) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    let at = 0;
    // A CR that ended the previous chunk and an LF that starts this one are one line break.
    if (afterCr && chunk[0] === LF) at = 1;
    afterCr = false;
    let nextLf = chunk.indexOf(LF, at);
    let nextCr = chunk.indexOf(CR, at);
    while (nextLf !== -1 || nextCr !== -1) {
      const end = nextCr === -1 || (nextLf !== -1 && nextLf < nextCr) ? nextLf : nextCr;
      yield take(chunk, at, end, base + end + 1);
      at = end + 1;
      if (chunk[end] === CR) {
        if (end + 1 === chunk.length) afterCr = true;
        else if (chunk[end + 1] === LF) at += 1;
        nextCr = chunk.indexOf(CR, at);
      }
      if (nextLf !== -1 && nextLf < at) nextLf = chunk.indexOf(LF, at);
    }
    if (at < chunk.length) {
      if (pending + chunk.length - at > maxBytes) throw tooLong(number + 1);
      pieces.push(chunk.subarray(at));
      pending += chunk.length - at;
    }
    base += chunk.length;
  }
  if (pending > 0) yield take(Buffer.alloc(0), 0, 0, base);
}
