import type { CsvColumn } from './csv-columns.js';

/**
 * Short column names for a workbook (`--short-names`): `value_price_mean` for
 * `property/value.value.price_mean`, `price_mean` on the endpoint's own sheet (`--sheets
 * endpoint`), `zipcode` for `address_info.zipcode`. The words a person reads: the endpoint's
 * target, then the field's path, the result's wrapper named after the target dropped. A short
 * name another column already has (an input column `zipcode`) falls back to the whole path in
 * words (`address_info_zipcode`), then to the dotted path, so no two columns share a name.
 */
function shortName(column: CsvColumn, ownSection: string | undefined): string | undefined {
  if (column.source.from !== 'chunk') return undefined;
  const [member, ...path] = column.source.path;
  if (member === undefined || path.length === 0) return undefined;
  const target = member.slice(member.indexOf('/') + 1);
  const fields = path[0] === 'result' ? path.slice(1) : path;
  // A section: `property/value` → `value`, and `value.price_mean` → `price_mean` inside it.
  if (member.includes('/')) {
    const inner = fields[0] === target && fields.length > 1 ? fields.slice(1) : fields;
    return (member === ownSection ? inner : [target, ...inner]).join('_');
  }
  // The item's info (`address_info`): its fields by name.
  return fields.join('_');
}

/** The whole path in words: `address_info.zipcode` → `address_info_zipcode`. */
const longName = (header: string) => header.replace(/[./]/g, '_');

/** The columns of one sheet with short names; `ownSection` is the endpoint a `--sheets endpoint` sheet holds. */
export function shortColumns(columns: readonly CsvColumn[], ownSection?: string): CsvColumn[] {
  const taken = new Set(columns.filter((column) => shortName(column, ownSection) === undefined).map((column) => column.header));
  return columns.map((column) => {
    const short = shortName(column, ownSection);
    if (short === undefined) return column;
    const header = [short, longName(column.header), column.header].find((name) => !taken.has(name)) ?? column.header;
    taken.add(header);
    return { ...column, header };
  });
}
