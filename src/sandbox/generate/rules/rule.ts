import type { PropertyFacts } from '../facts.js';
import type { BlockPlace, Place } from '../place.js';
import type { Random } from '../random.js';

export interface RuleContext {
  random: Random;
  /** The endpoint parameters the item was sent with (query string merged with the item). */
  params: Readonly<Record<string, string | number>>;
  nowMs: number;
  /** Present for property-level calls, including the property forms of block endpoints. */
  property?: { place: Place; facts: PropertyFacts };
  block: BlockPlace;
}

/**
 * Generated results are plain JSON whose shape the schema walk guarantees; rules index into them by
 * the catalog's field names, so they are typed loosely on purpose.
 */
export type Generated = any;

/** Makes one endpoint's generated result internally consistent and consistent with the facts. */
export type Rule = (result: Generated, context: RuleContext) => Generated;

export function propertyOf(context: RuleContext): { place: Place; facts: PropertyFacts } {
  if (!context.property) throw new Error('a property-level rule ran without a property');
  return context.property;
}
