import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import iconv from 'iconv-lite';
import { UsageError } from '../errors/index.js';

/**
 * The character encoding of a CSV, and its decoding. A spreadsheet saves CSV in one of three:
 * UTF-8 (Excel's "CSV UTF-8", LibreOffice, Google Sheets), Windows-1252 (Excel's plain "CSV
 * (Comma delimited)" on a Western Windows) and UTF-16 with a byte order mark (Excel's "Unicode
 * Text", tab-separated). The mark decides when there is one, `--encoding` when given; otherwise a
 * file that is not valid UTF-8 is read as Windows-1252, in which all but five bytes are
 * characters (so no row is lost to its accents), and the caller says so once. Encodings are
 * named as iconv-lite names them: `utf-8`, `windows-1252`, `utf-16le`...
 */

export const UTF8 = 'utf-8';
/** What Excel's "CSV (Comma delimited)" writes on a Western Windows. */
export const WINDOWS_1252 = 'windows-1252';

/** `utf8`, `UTF-8`, `utf-8`: iconv-lite's spellings of one encoding. */
export const isUtf8Name = (name: string): boolean => name.toLowerCase().replace(/[^a-z0-9]/g, '') === 'utf8';

/** The encoding a byte order mark names. */
export function markedCharset(head: Buffer): string | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return UTF8;
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** `--encoding NAME`, checked: any encoding iconv-lite knows (latin1, cp1252, utf16le, shift_jis...). */
export function checkEncoding(name: string): string {
  // encodingExists narrows the name to iconv-lite's list, and the message has the name as given.
  const given = name;
  if (!iconv.encodingExists(name)) {
    throw new UsageError(
      `--encoding ${given}: not an encoding propdata knows; try utf-8, windows-1252, latin1 or utf-16le`,
      'E_USAGE_ENCODING',
    );
  }
  return name;
}

/** How many leading bytes of `bytes` are whole UTF-8 characters: a character cut by the chunk's end waits for the next. */
function wholeCharacters(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** Whether a file is UTF-8 from its first byte to its last: one pass, a chunk in memory at a time. */
export async function isUtf8File(path: string): Promise<boolean> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const whole = wholeCharacters(bytes);
    if (!isUtf8(bytes.subarray(0, whole))) return false;
    carry = bytes.subarray(whole);
  }
  return carry.length === 0;
}

/** Whether the start of a stream is UTF-8, a character cut at its end aside: all a pipe can show before it is read. */
export function startsAsUtf8(head: Buffer): boolean {
  return isUtf8(head.subarray(0, wholeCharacters(head)));
}

/** The start of an input as text in `charset`, for sniffing its format and delimiter. */
export function decodeHead(head: Buffer, charset: string): string {
  return isUtf8Name(charset) ? head.toString('utf8') : iconv.decode(head, charset);
}

/**
 * Decodes a byte stream, counting the bytes taken into `position` (a progress bar measures the
 * file in bytes, not in decoded characters). The byte order mark goes.
 */
export async function* decodeChunks(source: AsyncIterable<Buffer>, charset: string, position: { bytes: number }): AsyncGenerator<string> {
  const decoder = iconv.getDecoder(charset);
  for await (const chunk of source) {
    position.bytes += chunk.length;
    const text = decoder.write(chunk);
    if (text !== '') yield text;
  }
  const rest = decoder.end();
  if (rest !== undefined && rest !== '') yield rest;
}
