/**
 * Input is decoded as UTF-8; bytes that are not UTF-8 come out as U+FFFD. We do not guess another
 * encoding (a wrong guess silently corrupts addresses); the row is marked invalid instead, so the
 * rest of the file still runs and the user learns which rows to fix.
 *
 * A NUL byte is never part of text. At the start of the input it means a binary file
 * (sniff.checkText refuses it); further on, a damaged or spliced file: the row holding it is
 * marked invalid the same way, rather than sent and written with the byte in it.
 */
const REPLACEMENT_CHARACTER = '\uFFFD';
const NUL = '\u0000';

export const NOT_UTF8 = 'contains bytes that are not valid UTF-8 (the file may be Latin-1 or Windows-1252); save it as UTF-8 and rerun';

export const NUL_BYTE =
  'contains a NUL byte, which text never holds (the file may be damaged or partly binary); remove the byte or the row and rerun';

/** The first rule the text of a cell or a line breaks, or undefined. */
export function textProblem(text: string): string | undefined {
  if (text.includes(REPLACEMENT_CHARACTER)) return NOT_UTF8;
  if (text.includes(NUL)) return NUL_BYTE;
  return undefined;
}
