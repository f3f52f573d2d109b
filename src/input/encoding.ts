/**
 * What a cell's text may not hold. Bytes that were not UTF-8 come out as U+FFFD: that is only
 * possible when `--encoding utf-8` was chosen, or from a pipe whose start was UTF-8 (a file is
 * checked whole, charset.ts), and it is a problem only in a cell that is sent: the row is refused
 * then, and the rest of the file still runs. Passthrough columns are written as read.
 *
 * A NUL byte is never part of text. At the start of the input it means a binary file
 * (sniff.checkText refuses it); further on, a damaged or spliced file: the row holding it is
 * marked invalid, whichever column holds it, rather than sent and written with the byte in it.
 */
const REPLACEMENT_CHARACTER = '\uFFFD';
const NUL = '\u0000';

const NOT_UTF8 =
  "contains bytes that are not valid UTF-8; choose the file's encoding with --encoding (windows-1252 for a CSV Excel saved), or save it as UTF-8, and rerun";

export const NUL_BYTE =
  'contains a NUL byte, which text never holds (the file may be damaged or partly binary); remove the byte or the row and rerun';

/** Why a cell that is sent cannot be: bytes that did not decode. */
export function undecodedText(text: string): string | undefined {
  return text.includes(REPLACEMENT_CHARACTER) ? NOT_UTF8 : undefined;
}

/** Why a row cannot be read, whichever column the text is in: a NUL byte. */
export function nulByte(text: string): string | undefined {
  return text.includes(NUL) ? NUL_BYTE : undefined;
}
