import type { Readable } from 'node:stream';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { MAX_RECORD_BYTES } from './record-size.js';

/** What a part's reader does with the XML, element by element. Names are as written (`x:c` stays `x:c`). */
export interface XmlHandlers {
  open(tag: SaxesTagPlain): void;
  close(name: string): void;
  text(text: string): void;
  /**
   * A run of text (or a tag) longer than MAX_RECORD_BYTES: throw to stop, or return to have the
   * rest of it dropped (a shared string too long to keep, refused once a cell uses it).
   */
  tooLong(): void;
}

/** `x:row` is `row`: some writers prefix SpreadsheetML's elements with a namespace prefix. */
export const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/**
 * Parses an XML part as it streams, yielding after each chunk's events (where a
 * reader hands out what the chunk completed). Nothing longer than MAX_RECORD_BYTES reaches the
 * parser in one piece: saxes gathers a text node whole, and a 1 GiB cell would end in V8's
 * "Invalid string length" with every row after it lost.
 */
export async function* parseXml(stream: Readable, handlers: XmlHandlers, onChunk?: (chars: number) => void): AsyncGenerator<void> {
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('opentag', (tag) => handlers.open(tag));
  parser.on('closetag', (tag) => handlers.close(tag.name));
  parser.on('text', (text) => handlers.text(text));
  parser.on('cdata', (text) => handlers.text(text));
  stream.setEncoding('utf8');
  // Characters since the last '<' (the parser's longest piece so far), and whether we are dropping them.
  let run = 0;
  let dropping = false;
  /** Writes one chunk, in pieces none longer than the limit. */
  function write(chunk: string): void {
    const first = chunk.indexOf('<');
    if (!dropping && run + (first === -1 ? chunk.length : first) <= MAX_RECORD_BYTES && chunk.length <= MAX_RECORD_BYTES) {
      // The usual chunk: whole, as no piece in it can be longer than the chunk.
      parser.write(chunk);
      run = first === -1 ? run + chunk.length : chunk.length - 1 - chunk.lastIndexOf('<');
      return;
    }
    for (let from = 0; from < chunk.length;) {
      const tag = chunk.indexOf('<', from);
      const end = tag === -1 ? chunk.length : tag;
      if (!dropping && run + end - from > MAX_RECORD_BYTES) {
        // The parser has the piece's start; the '<' that ends it still reaches it, so the piece
        // ends as a (cut) text event and parsing goes on from the next tag.
        handlers.tooLong();
        dropping = true;
      }
      if (!dropping) parser.write(chunk.slice(from, tag === -1 ? chunk.length : tag + 1));
      else if (tag !== -1) parser.write('<');
      if (tag === -1) {
        run += end - from;
        return;
      }
      run = 0;
      dropping = false;
      from = tag + 1;
    }
  }
  for await (const chunk of stream as AsyncIterable<string>) {
    onChunk?.(chunk.length);
    try {
      write(chunk);
    } catch (error) {
      // What the chunk completed before the failure is still handed out (the rows before a
      // refused cell are written), then the failure stops the read.
      yield;
      throw error;
    }
    yield;
  }
  parser.close();
  yield;
}
