/**
 * Input is decoded as UTF-8; bytes that are not UTF-8 come out as U+FFFD. We do not guess another
 * encoding (a wrong guess silently corrupts addresses); the row is marked invalid instead, so the
 * rest of the file still runs and the user learns which rows to fix.
 */
const REPLACEMENT_CHARACTER = '\uFFFD';

export const NOT_UTF8 =
  'contains bytes that are not valid UTF-8 (the file may be Latin-1 or Windows-1252); save it as UTF-8 and rerun';

export function hasInvalidUtf8(text: string): boolean {
  return text.includes(REPLACEMENT_CHARACTER);
}
