import { posix } from 'node:path';
import type { SaxesTagPlain } from 'saxes';
import { localName, parseXml } from './xlsx-xml.js';
import { partKey, type WorkbookZip } from './xlsx-zip.js';

/** A sheet as the workbook lists it, in tab order. */
export interface SheetPart {
  name: string;
  /** The part holding its rows; undefined when the workbook names a part the zip lacks. */
  part: string | undefined;
  /** `worksheet` holds rows; `chartsheet`, `dialogsheet` and `macrosheet` do not. */
  kind: string;
}

/** What the workbook's relationships say about it: its sheets and the parts every sheet reads. */
export interface WorkbookParts {
  sheets: SheetPart[];
  sharedStrings: string | undefined;
  styles: string | undefined;
  /** Dates counted from 1904-01-01 (old Mac Excel), not from 1899-12-30. */
  date1904: boolean;
}

/** The workbook cannot be read as the format defines it; the reason is for the message. */
export class NotAWorkbook extends Error {}

/** Content types of a workbook that holds its cells as XML: .xlsx, .xltx, .xlsm, .xltm, Strict OOXML alike. */
const XML_WORKBOOK =
  /^application\/vnd\.(openxmlformats-officedocument\.spreadsheetml\.(sheet|template)|ms-excel\.(sheet|template)\.macroEnabled)\.main\+xml$/;
const BINARY_WORKBOOK = 'application/vnd.ms-excel.sheet.binary.macroEnabled.main';

/** Relationship types are URIs that differ between transitional and Strict OOXML: their last segment is the kind. */
const relationKind = (type: string): string => type.slice(type.lastIndexOf('/') + 1);

/** The attribute of an element by its local name (`r:id` is `id` in any prefix). */
function attribute(tag: SaxesTagPlain, name: string, prefixed = false): string | undefined {
  for (const [key, value] of Object.entries(tag.attributes)) {
    if (localName(key) === name && key.includes(':') === prefixed) return value;
  }
  return undefined;
}

/** The start tags of a small part (content types, relationships, the workbook) with the given local names. */
async function tagsOf(zip: WorkbookZip, part: string, names: readonly string[]): Promise<SaxesTagPlain[]> {
  const tags: SaxesTagPlain[] = [];
  const handlers = {
    open: (tag: SaxesTagPlain) => {
      if (names.includes(localName(tag.name))) tags.push(tag);
    },
    close: () => undefined,
    text: () => undefined,
    tooLong: () => {
      throw new NotAWorkbook(`its part ${part} holds a piece longer than any workbook writes`);
    },
  };
  for await (const _ of parseXml(await zip.open(part), handlers)) {
    // Events are gathered by the handlers.
  }
  return tags;
}

/**
 * A relationship's target as a part name: absolute (`/xl/worksheets/sheet1.xml`, as openpyxl
 * writes it) or relative to the folder of the part whose relationships these are
 * (`worksheets/sheet1.xml` from `/xl/workbook.xml`), with `..` and percent-escapes resolved.
 */
// Exported for test/input/xlsx-reader.test.ts: relationship targets in forms no fixture workbook holds.
export function resolveTarget(sourcePart: string, target: string): string {
  let path = target.split('#')[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {
    // A stray % is part of the name.
  }
  return posix.normalize(path.startsWith('/') ? path : posix.join(posix.dirname(`/${sourcePart.replace(/^\/+/, '')}`), path));
}

/** The relationships part of a part: `/xl/workbook.xml` → `/xl/_rels/workbook.xml.rels`. */
const relationshipsOf = (part: string) => posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`);

interface Relationship {
  id: string;
  kind: string;
  part: string;
}

async function relationships(zip: WorkbookZip, sourcePart: string): Promise<Relationship[]> {
  const part = sourcePart === '/' ? '/_rels/.rels' : relationshipsOf(sourcePart);
  if (zip.size(part) === undefined) return [];
  return (await tagsOf(zip, part, ['Relationship']))
    .filter((tag) => attribute(tag, 'TargetMode') !== 'External')
    .map((tag) => ({
      id: attribute(tag, 'Id') ?? '',
      kind: relationKind(attribute(tag, 'Type') ?? ''),
      part: resolveTarget(sourcePart, attribute(tag, 'Target') ?? ''),
    }));
}

interface ContentTypes {
  /** A part's content type: its override, else the default for its extension. */
  typeOf: (part: string) => string | undefined;
  /** The parts named one by one, with their types. */
  overrides: Map<string, string>;
}

async function contentTypes(zip: WorkbookZip): Promise<ContentTypes> {
  const tags = zip.size('[Content_Types].xml') === undefined ? [] : await tagsOf(zip, '[Content_Types].xml', ['Override', 'Default']);
  const overrides = new Map<string, string>();
  const defaults = new Map<string, string>();
  for (const tag of tags) {
    const type = attribute(tag, 'ContentType') ?? '';
    if (localName(tag.name) === 'Override') overrides.set(partKey(attribute(tag, 'PartName') ?? ''), type);
    else defaults.set((attribute(tag, 'Extension') ?? '').toLowerCase(), type);
  }
  const typeOf = (part: string) => overrides.get(partKey(part)) ?? defaults.get(posix.extname(part).slice(1).toLowerCase());
  return { typeOf, overrides };
}

/**
 * Finds the workbook as the format defines it (ECMA-376 part 2): the package's officeDocument
 * relationship, else the part the content types name as a workbook; then its sheets in tab order
 * from workbook.xml, each resolved through the workbook's relationships, and the shared strings
 * and styles the same way. No writer's layout is assumed: not the part names, not the order of
 * the zip's entries, not whether targets are absolute or relative.
 */
export async function workbookParts(zip: WorkbookZip): Promise<WorkbookParts> {
  const { typeOf, overrides } = await contentTypes(zip);
  const fromRelationships = (await relationships(zip, '/')).find((each) => each.kind === 'officeDocument')?.part;
  const fromTypes = [...overrides].find(([, type]) => XML_WORKBOOK.test(type) || type === BINARY_WORKBOOK)?.[0];
  const workbook = fromRelationships ?? (fromTypes === undefined ? undefined : `/${fromTypes}`);
  if (workbook === undefined || zip.size(workbook) === undefined) {
    throw new NotAWorkbook('it is a zip archive without a workbook in it (an .xlsx holds xl/workbook.xml)');
  }
  if (typeOf(workbook) === BINARY_WORKBOOK) throw new NotAWorkbook('it is a binary workbook (.xlsb); save it as .xlsx and rerun');

  const byId = new Map<string, Relationship>();
  const byKind = new Map<string, Relationship>();
  for (const each of await relationships(zip, workbook)) {
    byId.set(each.id, each);
    if (!byKind.has(each.kind)) byKind.set(each.kind, each);
  }
  const present = (part: string | undefined) => (part !== undefined && zip.size(part) !== undefined ? part : undefined);
  const tags = await tagsOf(zip, workbook, ['sheet', 'workbookPr']);
  const sheets = tags
    .filter((tag) => localName(tag.name) === 'sheet')
    .map((tag) => {
      const relation = byId.get(attribute(tag, 'id', true) ?? '');
      return { name: attribute(tag, 'name') ?? '', part: present(relation?.part), kind: relation?.kind ?? 'worksheet' };
    });
  const properties = tags.find((tag) => localName(tag.name) === 'workbookPr');
  const date1904 = ['1', 'true'].includes(properties ? (attribute(properties, 'date1904') ?? '') : '');
  return {
    sheets,
    sharedStrings: present(byKind.get('sharedStrings')?.part),
    styles: present(byKind.get('styles')?.part),
    date1904,
  };
}
