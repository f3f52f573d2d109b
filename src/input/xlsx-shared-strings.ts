import type { SaxesTagPlain } from 'saxes';
import { MAX_RECORD_BYTES } from './record-size.js';
import { localName, parseXml } from './xlsx-xml.js';
import type { WorkbookZip } from './xlsx-zip.js';

/** A shared string too long to keep: refused, naming the row, only if a cell of the sheet read uses it. */
export const TOO_LONG = Symbol('too long');
export type SharedString = string | typeof TOO_LONG;

/**
 * `_x000D_`: how OOXML writes a character XML cannot carry (ECMA-376 part 1, 22.9.2.19), and
 * `_x005F_` an underscore that would otherwise start one. A CSV export shows the character.
 */
export function unescapeText(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * Gathers a string item's text: its `t` elements (one, or one per rich-text run), without the
 * phonetic guide (`rPh`) that East Asian workbooks add. Shared by the shared strings and a
 * cell's inline string, which have the same shape.
 */
export class StringItem {
  #text = '';
  #inText = false;
  #phonetic = 0;
  tooLong = false;

  open(name: string): void {
    if (name === 'rPh') this.#phonetic += 1;
    else if (name === 't' && this.#phonetic === 0) this.#inText = true;
  }

  close(name: string): void {
    if (name === 'rPh') this.#phonetic -= 1;
    else if (name === 't') this.#inText = false;
  }

  add(text: string): void {
    if (!this.#inText || this.tooLong) return;
    if (this.#text.length + text.length > MAX_RECORD_BYTES) {
      this.tooLong = true;
      this.#text = '';
    } else this.#text += text;
  }

  value(): SharedString {
    return this.tooLong ? TOO_LONG : unescapeText(this.#text);
  }
}

/** The workbook's shared strings, in order: a cell of type `s` names one by its index. */
export async function sharedStrings(zip: WorkbookZip, part: string | undefined): Promise<SharedString[]> {
  const strings: SharedString[] = [];
  if (part === undefined) return strings;
  let item: StringItem | undefined;
  const handlers = {
    open(tag: SaxesTagPlain) {
      const name = localName(tag.name);
      if (name === 'si') item = new StringItem();
      else item?.open(name);
    },
    close(tagName: string) {
      const name = localName(tagName);
      if (name === 'si' && item) {
        strings.push(item.value());
        item = undefined;
      } else item?.close(name);
    },
    text: (text: string) => item?.add(text),
    tooLong: () => {
      if (item) item.tooLong = true;
    },
  };
  for await (const _ of parseXml(await zip.open(part), handlers)) {
    // Gathered by the handlers.
  }
  return strings;
}
