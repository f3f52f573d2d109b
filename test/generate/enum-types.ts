import * as ENUMS from '../../src/catalog/enums.js';

/** A string literal type (as schema-type.ts's, which imports this module). */
const literal = (value: unknown): string => JSON.stringify(value);

/** `LienType` from `LIEN_TYPES`: a catalog list's name, as the type of one of its values. */
function typeName(constant: string): string {
  // One rule a word: STATUSES is STATUS, not STATU.
  const singular = /IES$/.test(constant)
    ? constant.replace(/IES$/, 'Y')
    : /(X|SS|US)ES$/.test(constant)
      ? constant.replace(/ES$/, '')
      : constant.replace(/S$/, '');
  return singular
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/**
 * The catalog's named lists of strings (enums.ts), by the list itself: the schemas hold the same
 * arrays. In the order of their names: node lists a module's exports so, a bundler (vitest's) in
 * the order of the source, and the generated file must not depend on which loaded it.
 */
const NAMED = new Map<readonly unknown[], { constant: string; name: string }>(
  Object.entries(ENUMS)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([constant, values]) =>
      Array.isArray(values) && values.every((value) => typeof value === 'string')
        ? [[values as readonly string[], { constant, name: typeName(constant) }]]
        : [],
    ),
);

/** The type of one of `values`: the catalog's name for the list when it has one, else the union of its literals. */
export const enumType = (values: readonly string[]): string => NAMED.get(values)?.name ?? values.map(literal).join(' | ');

/** `export type LienType = 'arm' | ...;` for every named list of the catalog. */
export const enumDeclarations = (): string[] =>
  [...NAMED].map(
    ([values, { constant, name }]) =>
      `/** A value of the catalog's ${constant} (src/catalog/enums.ts). */\nexport type ${name} = ${values.map(literal).join(' | ')};`,
  );
