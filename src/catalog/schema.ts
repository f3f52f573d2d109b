/**
 * A tiny, declarative description of result shapes, transcribed from the spec's field tables.
 * It is data, not code: the sandbox generates results from it, tests check responses against
 * it, and the CSV writer derives its columns from it.
 */
export type Schema = StringSchema | NumberSchema | BooleanSchema | ObjectSchema | ListSchema;

interface Base {
  nullable?: boolean;
  /** A member the service sends only sometimes (value_details_adjusted's adjusted_*_to: only for the additions sent). */
  optional?: boolean;
}

export interface StringSchema extends Base {
  type: 'string';
  /** Allowed values, when the spec enumerates them. */
  enum?: readonly string[];
  /** `date`: ISO yyyy-mm-dd; `month`: yyyy-mm; `digits`: exactly `length` decimal digits; `url`. */
  format?: 'date' | 'month' | 'digits' | 'url';
  length?: number;
}

export interface NumberSchema extends Base {
  type: 'int' | 'float';
  min?: number;
  max?: number;
  /** `usd`: an amount of dollars (a price, a value, a lien, a rent), which a spreadsheet shows with thousands separators. */
  unit?: 'usd';
}

export interface BooleanSchema extends Base {
  type: 'boolean';
  /** `true or null` fields such as has_price_considerations. */
  onlyTrue?: boolean;
}

export interface ObjectSchema extends Base {
  type: 'object';
  fields: Readonly<Record<string, Schema>>;
}

export interface ListSchema extends Base {
  type: 'list';
  items: Schema;
}

export const str = (extra: Omit<StringSchema, 'type'> = {}): StringSchema => ({ type: 'string', ...extra });
export const oneOf = (values: readonly string[]): StringSchema => ({ type: 'string', enum: values });
export const digits = (length: number): StringSchema => ({ type: 'string', format: 'digits', length });
export const isoDate = (): StringSchema => ({ type: 'string', format: 'date' });
export const int = (extra: Omit<NumberSchema, 'type'> = {}): NumberSchema => ({ type: 'int', ...extra });
export const float = (extra: Omit<NumberSchema, 'type'> = {}): NumberSchema => ({ type: 'float', ...extra });
/** An amount of dollars: `dollars(int({ min: 0 }))`. */
export const dollars = <S extends NumberSchema>(schema: S): S => ({ ...schema, unit: 'usd' });
export const bool = (): BooleanSchema => ({ type: 'boolean' });
export const trueOrNull = (): BooleanSchema => ({ type: 'boolean', onlyTrue: true, nullable: true });
export const obj = (fields: Record<string, Schema>): ObjectSchema => ({ type: 'object', fields });
export const list = (items: Schema): ListSchema => ({ type: 'list', items });
export const nullable = <S extends Schema>(schema: S): S => ({ ...schema, nullable: true });
export const optional = <S extends Schema>(schema: S): S => ({ ...schema, optional: true });
