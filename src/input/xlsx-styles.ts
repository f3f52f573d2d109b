import type { SaxesTagPlain } from 'saxes';
import { isDateFormat } from './xlsx-cell-text.js';
import { localName, parseXml } from './xlsx-xml.js';
import type { WorkbookZip } from './xlsx-zip.js';

/**
 * The built-in number formats that show a date or a time (ECMA-376 part 1, 18.8.30): 14 to 22 and
 * 45 to 47, and the East Asian date formats 27 to 36 and 50 to 58. A workbook names them by id only.
 */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47]);
for (let id = 50; id <= 58; id++) BUILT_IN_DATE_FORMATS.add(id);

/**
 * Which cell styles show their number as a date, by the style index a cell's `s` names: the only
 * thing in the styles part that changes a cell's text (a date is stored as a day count).
 */
export async function dateStyles(zip: WorkbookZip, part: string | undefined): Promise<(style: number) => boolean> {
  if (part === undefined) return () => false;
  const formats = new Map<number, string>();
  const styleFormats: number[] = [];
  let inCellFormats = false;
  const handlers = {
    open(tag: SaxesTagPlain) {
      const name = localName(tag.name);
      if (name === 'numFmt') formats.set(Number(tag.attributes.numFmtId), tag.attributes.formatCode ?? '');
      else if (name === 'cellXfs') inCellFormats = true;
      else if (name === 'xf' && inCellFormats) styleFormats.push(Number(tag.attributes.numFmtId ?? 0));
    },
    close(name: string) {
      if (localName(name) === 'cellXfs') inCellFormats = false;
    },
    text: () => undefined,
    tooLong: () => undefined,
  };
  for await (const _ of parseXml(await zip.open(part), handlers)) {
    // Gathered by the handlers.
  }
  const isDate = styleFormats.map((id) => (formats.has(id) ? isDateFormat(formats.get(id)) : BUILT_IN_DATE_FORMATS.has(id)));
  return (style) => isDate[style] ?? false;
}
