import type { Schema } from '../../src/catalog/index.js';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function isIsoDate(text: string): boolean {
  return ISO_DATE.test(text) && new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;
}

function stringProblem(schema: Extract<Schema, { type: 'string' }>, value: string): string | undefined {
  if (schema.enum && !schema.enum.includes(value)) return `"${value}" is not one of ${schema.enum.join(' | ')}`;
  if (schema.format === 'date' && !isIsoDate(value)) return `"${value}" is not an ISO date`;
  if (schema.format === 'month' && !/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) return `"${value}" is not yyyy-mm`;
  if (schema.format === 'digits' && !new RegExp(`^\\d{${schema.length}}$`).test(value)) return `"${value}" is not ${schema.length} digits`;
  if (schema.format === 'url' && !/^https?:\/\/\S+$/.test(value)) return `"${value}" is not a URL`;
  if (schema.format === undefined && schema.length !== undefined && value.length !== schema.length) {
    return `"${value}" is not ${schema.length} characters`;
  }
  return undefined;
}

/**
 * Every way `value` departs from a catalog Schema: types, enumerations, digit counts, date formats,
 * bounds, nullability, and object members (none missing unless optional, none extra). Empty when it conforms.
 */
export function schemaProblems(schema: Schema, value: unknown, path = 'result'): string[] {
  const at = (problem: string) => [`${path}: ${problem}`];
  if (value === null) return schema.nullable ? [] : at('is null but not nullable');
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return at(`expected a string, got ${JSON.stringify(value)}`);
      const problem = stringProblem(schema, value);
      return problem ? at(problem) : [];
    }
    case 'int':
    case 'float': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return at(`expected a number, got ${JSON.stringify(value)}`);
      if (schema.type === 'int' && !Number.isInteger(value)) return at(`expected an integer, got ${value}`);
      if (schema.min !== undefined && value < schema.min) return at(`${value} is below ${schema.min}`);
      if (schema.max !== undefined && value > schema.max) return at(`${value} is above ${schema.max}`);
      return [];
    }
    case 'boolean':
      if (typeof value !== 'boolean') return at(`expected a boolean, got ${JSON.stringify(value)}`);
      return schema.onlyTrue && !value ? at('may only be true or null') : [];
    case 'list':
      if (!Array.isArray(value)) return at(`expected a list, got ${JSON.stringify(value)}`);
      return value.flatMap((item, index) => schemaProblems(schema.items, item, `${path}[${index}]`));
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return at(`expected an object, got ${JSON.stringify(value)}`);
      const record = value as Record<string, unknown>;
      const extra = Object.keys(record)
        .filter((key) => !(key in schema.fields))
        .map((key) => `${path}.${key}: not in the schema`);
      const fields = Object.entries(schema.fields).flatMap(([name, fieldSchema]) => {
        const fieldPath = `${path}.${name}`;
        if (!(name in record)) return fieldSchema.optional ? [] : [`${fieldPath}: missing`];
        return schemaProblems(fieldSchema, record[name], fieldPath);
      });
      return [...extra, ...fields];
    }
  }
}
