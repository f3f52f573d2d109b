import type { Schema } from '../../src/catalog/index.js';
import { enumType } from './enum-types.js';

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
export function schemaMembers(
  fields: Readonly<Record<string, Schema>>,
  override: Readonly<Record<string, string>> = {},
  at?: Place,
): Member[] {
  return Object.entries(fields).map(([name, schema]) => ({
    name,
    type: override[name] ?? schemaType(schema, at && { ...at, path: `${at.path}[${literal(name)}]` }),
    optional: schema.optional,
  }));
}

/**
 * Where a schema is being written: the type that reaches it (`ResultTypes['property/details_enhanced']`),
 * and the object shapes written so far with theirs. The catalog shares one shape object where the
 * service sends one shape twice (details_enhanced's listing_record and public_record): its second
 * place names the first instead of spelling it out again.
 */
export interface Place {
  path: string;
  written: Map<Schema, string>;
}

/** The fewest fields a shared shape has for its second place to name its first. */
const NAMED_SHAPE_FIELDS = 3;

/** The way back to a shape from where it was first written: without the null or absence it had there. */
const reference = (path: string, schema: Schema) => (schema.nullable || schema.optional ? `NonNullable<${path}>` : path);

function bareType(schema: Schema, at?: Place): string {
  switch (schema.type) {
    case 'string':
      return schema.enum ? enumType(schema.enum) : 'string';
    case 'int':
    case 'float':
      return 'number';
    case 'boolean':
      return schema.onlyTrue ? 'true' : 'boolean';
    case 'list': {
      const items = schemaType(schema.items, at && { ...at, path: `NonNullable<${at.path}>[number]` });
      return isUnion(schema.items) ? `(${items})[]` : `${items}[]`;
    }
    case 'object': {
      // An object the catalog lists no fields for (address_info.status.requested_item, the identifiers as sent) is open.
      if (Object.keys(schema.fields).length === 0) return 'Record<string, unknown>';
      const first = at?.written.get(schema);
      // A shape of a field or two reads better spelled out than as the way to another endpoint's.
      if (first !== undefined && Object.keys(schema.fields).length >= NAMED_SHAPE_FIELDS) return first;
      // Its members are reached through it: without its null, or they could not be indexed.
      const self = at && { ...at, path: reference(at.path, schema) };
      self?.written.set(schema, self.path);
      return objectType(schemaMembers(schema.fields, {}, self));
    }
  }
}

export function schemaType(schema: Schema, at?: Place): string {
  return schema.nullable ? `${bareType(schema, at)} | null` : bareType(schema, at);
}
