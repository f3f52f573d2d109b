import type { EndpointName } from '../../../catalog/index.js';
import type { PropertyFacts } from '../facts.js';
import type { BlockPlace, Place } from '../place.js';
import { randomFor, type Random } from '../random.js';

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
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: the schema walk, not the compiler, vouches for the shape
export type Generated = any;

/**
 * Makes one endpoint's generated result internally consistent and consistent with the facts.
 * `generated()` walks the endpoint's schema, drawing from context.random: a rule that reads the
 * walk calls it before drawing anything itself; a rule that builds its result from the facts alone
 * never calls it, and the walk (most of the cost of such a result) is skipped.
 */
export type Rule = (generated: () => Generated, context: RuleContext) => Generated;

/** Rules by catalog endpoint name: a name the catalog does not have is a type error. */
export type RuleTable = Readonly<Partial<Record<EndpointName, Rule>>>;

export function propertyOf(context: RuleContext): { place: Place; facts: PropertyFacts } {
  if (!context.property) throw new Error('a property-level rule ran without a property');
  return context.property;
}

/** The random source of an endpoint's result for a subject (and property type): one seed, wherever a result is drawn or redrawn. */
export const resultRandom = (ruleName: string, subjectKey: string, propertyType: string): Random =>
  randomFor('result', ruleName, subjectKey, propertyType);
