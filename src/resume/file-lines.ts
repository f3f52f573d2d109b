import { createReadStream } from 'node:fs';

export interface FileLine {
  /** The line without its newline. */
  text: string;
  /** The byte offset just past the line (and its newline when it has one). */
  end: number;
  /** False for a last line with no newline: a write cut short. */
  terminated: boolean;
}

const NEWLINE = 0x0a;

/**
 * The lines of a file, streamed, with where each ends in bytes: a torn last line is cut off at
 * the end of the line before it. Lines are split as bytes so that a character split between
 * two reads is decoded whole.
 */
export async function* fileLines(path: string): AsyncGenerator<FileLine> {
  let rest = Buffer.alloc(0);
  let offset = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      const line = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(start, newline)]) : chunk.subarray(start, newline);
      rest = Buffer.alloc(0);
      yield { text: line.toString('utf8'), end: offset + newline + 1, terminated: true };
      start = newline + 1;
    }
    rest = Buffer.concat([rest, chunk.subarray(start)]);
    offset += chunk.length;
  }
  if (rest.length > 0) yield { text: rest.toString('utf8'), end: offset, terminated: false };
}
