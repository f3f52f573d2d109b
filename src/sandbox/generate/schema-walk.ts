import type { Schema } from '../../catalog/index.js';
import { DATA_MONTH, dayInPast, isoDay } from './dates.js';
import type { Random } from './random.js';
import { LIST_LENGTHS, NUMBERS, stringFor } from './vocabulary.js';

export interface WalkContext {
  random: Random;
  /** Values for fields of these names, wherever they occur (see PropertyFacts.fields). */
  facts: Readonly<Record<string, unknown>>;
  /** Dollars that money fields scale with: the property's value, or the area's typical value. */
  valueScale: number;
}

/**
 * Nullable scalars and lists without a rule of their own come out null this often. Nullable objects
 * (client ranges, assessment) are never nulled here: when they are null is an endpoint rule.
 */
const NULL_SHARE = 0.15;

function generateString(schema: Extract<Schema, { type: 'string' }>, field: string, context: WalkContext): string {
  const { random } = context;
  if (schema.enum) return random.pick(schema.enum);
  switch (schema.format) {
    case 'date':
      return isoDay(dayInPast(random, 20));
    case 'month':
      return DATA_MONTH;
    case 'digits':
      return Array.from({ length: schema.length ?? 5 }, () => random.int(0, 9)).join('');
    case 'url':
      return `https://cumulis.epa.gov/supercpad/cursites/csitinfo.cfm?id=${random.int(100_000, 999_999)}`;
  }
  if (field.endsWith('_date')) return isoDay(dayInPast(random, 5));
  return stringFor(field, random) ?? `${field.replace(/_/g, ' ')} ${random.int(1, 99)}`;
}

function generateNumber(schema: Extract<Schema, { type: 'int' | 'float' }>, field: string, context: WalkContext): number {
  const known = NUMBERS[field];
  const decimals = schema.type === 'int' ? 0 : (known?.decimals ?? 2);
  if (known) {
    const [from, to] = known.range;
    const value = context.random.float(from, to, 6) * (known.ofValue ? context.valueScale : 1);
    return Number(value.toFixed(decimals));
  }
  const min = schema.min ?? 0;
  const max = schema.max ?? 100;
  return schema.type === 'int' ? context.random.int(min, max) : context.random.float(min, max, decimals);
}

/**
 * A value of the schema's shape, types and enumerations, with plausible contents: the generic half
 * of the generator. Endpoint rules (rules/) then make related fields agree.
 */
export function generate(schema: Schema, field: string, context: WalkContext): unknown {
  if (field in context.facts) return context.facts[field];
  if (schema.nullable && schema.type !== 'object' && context.random.chance(NULL_SHARE)) return null;
  switch (schema.type) {
    case 'string':
      return generateString(schema, field, context);
    case 'int':
    case 'float':
      return generateNumber(schema, field, context);
    case 'boolean':
      return schema.onlyTrue ? true : context.random.chance(0.3);
    case 'object':
      return Object.fromEntries(Object.entries(schema.fields).map(([name, fieldSchema]) => [name, generate(fieldSchema, name, context)]));
    case 'list': {
      const [min, max] = LIST_LENGTHS[field] ?? [0, 3];
      return Array.from({ length: context.random.int(min, max) }, () => generate(schema.items, field, context));
    }
  }
}
