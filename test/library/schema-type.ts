import type { Schema } from '../../src/catalog/index.js';

/** TypeScript source text for the catalog's Schema values, as the service sends them in JSON. */

const PLAIN_KEY = /^[A-Za-z_$][\w$]*$/;

/** A member name, quoted only where TypeScript needs it (`'property/value'`, not `value`). */
export const memberKey = (name: string): string => (PLAIN_KEY.test(name) ? name : `'${name}'`);

/** A string literal type; JSON's escaping is valid TypeScript, and Prettier turns the quotes single. */
export const literal = (value: string): string => JSON.stringify(value);

/** A doc comment and its line break, or nothing without a text; `text`'s own lines stay lines. */
export function docComment(text: string | undefined): string {
  if (!text) return '';
  const lines = text.split('\n');
  return lines.length === 1 ? `/** ${text} */\n` : `/**\n${lines.map((line) => ` * ${line}\n`).join('')} */\n`;
}

/** One member of an object type: `name?: type;`, with its doc comment when there is one. */
export interface Member {
  name: string;
  type: string;
  optional?: boolean;
  doc?: string;
}

export const objectType = (members: readonly Member[]): string =>
  `{\n${members.map((member) => `${docComment(member.doc)}${memberKey(member.name)}${member.optional ? '?' : ''}: ${member.type};\n`).join('')}}`;

/** Whether a schema's type is written as a union, which `T[]` must then parenthesise. */
const isUnion = (schema: Schema): boolean => Boolean(schema.nullable) || (schema.type === 'string' && (schema.enum?.length ?? 0) > 1);

/**
 * An object schema's members; `override` replaces the type of the named ones (address_info's
 * status.match, which the schema can only call a boolean, is `true` or `false` by variant).
 */
export function schemaMembers(fields: Readonly<Record<string, Schema>>, override: Readonly<Record<string, string>> = {}): Member[] {
  return Object.entries(fields).map(([name, schema]) => ({ name, type: override[name] ?? schemaType(schema), optional: schema.optional }));
}

function bareType(schema: Schema): string {
  switch (schema.type) {
    case 'string':
      return schema.enum ? schema.enum.map(literal).join(' | ') : 'string';
    case 'int':
    case 'float':
      return 'number';
    case 'boolean':
      return schema.onlyTrue ? 'true' : 'boolean';
    case 'list':
      return isUnion(schema.items) ? `(${schemaType(schema.items)})[]` : `${schemaType(schema.items)}[]`;
    case 'object': {
      // An object the catalog lists no fields for (address_info.status.requested_item, the identifiers as sent) is open.
      const members = schemaMembers(schema.fields);
      return members.length === 0 ? 'Record<string, unknown>' : objectType(members);
    }
  }
}

export function schemaType(schema: Schema): string {
  return schema.nullable ? `${bareType(schema)} | null` : bareType(schema);
}
