import type { Endpoint } from '../../catalog/index.js';
import { addressInfo } from './address-info.js';
import { blockFields, propertyFacts, type PropertyFacts } from './facts.js';
import { hasNoContent } from './no-content.js';
import { blockPlace, resolveProperty, type BlockPlace, type Place, type Resolution } from './place.js';
import { randomFor } from './random.js';
import { RULES, type RuleContext } from './rules/index.js';
import { generate } from './schema-walk.js';

/** One requested item, validated: what the chunk is built from. */
export interface RequestItem {
  /** Identifier values as text, empty ones left out. */
  identifiers: Readonly<Record<string, string>>;
  /** Endpoint parameters after merging the query string and the item (the item wins). */
  params: Readonly<Record<string, string | number>>;
  /** The identifiers exactly as sent, echoed in address_info.status.requested_item. */
  requested: Readonly<Record<string, unknown>>;
  /** Present when the item carried meta: echoed as the chunk's top-level `meta`. */
  meta?: { value: unknown };
}

export interface BuiltChunk {
  chunk: Record<string, unknown>;
  /** Sections answered api_code 0: the ones billed. */
  delivered: Endpoint[];
}

/** Decides, for test keys, whether an item is on the test list. */
export type TestListCheck = (subjectKey: string) => boolean;

const NOT_IN_TEST_LIST = 'test key: item not in the test list';

const noContent = () => ({ api_code: 204, api_code_description: 'no content', result: null });
const ok = (result: unknown) => ({ api_code: 0, api_code_description: 'ok', result });

interface Subject {
  block: BlockPlace;
  property?: { place: Place; facts: PropertyFacts };
}

/**
 * A result: the schema walked generically, then the endpoint's consistency rule (which may build it
 * from the facts alone, without the walk). The random source is seeded by the endpoint and the
 * subject (and the block property_type, which selects different block statistics); client figures
 * and adjustments are applied by the rules, so sending them never reshuffles the rest of the result.
 */
function resultFor(endpoint: Endpoint, subject: Subject, params: RequestItem['params'], nowMs: number): unknown {
  const ruleName = endpoint.mirrors ?? endpoint.name;
  const isBlockResult = endpoint.mirrors !== undefined || endpoint.level === 'block';
  const subjectKey = isBlockResult || !subject.property ? subject.block.blockId : subject.property.place.key;
  const random = randomFor('result', ruleName, subjectKey, String(params.property_type ?? ''));
  const useProperty = !isBlockResult && subject.property;
  const generated = () =>
    generate(endpoint.result!, endpoint.target, {
      random,
      facts: useProperty ? subject.property!.facts.fields : blockFields(subject.block),
      valueScale: useProperty ? subject.property!.facts.valueMean : subject.block.typicalValue,
    });
  const rule = RULES[ruleName];
  const context: RuleContext = { random, params, nowMs, block: subject.block, property: subject.property };
  return rule ? rule(generated, context) : generated();
}

function sections(endpoints: readonly Endpoint[], subject: Subject | undefined, item: RequestItem, nowMs: number): BuiltChunk {
  const chunk: Record<string, unknown> = {};
  const delivered: Endpoint[] = [];
  for (const endpoint of endpoints) {
    const key = subject?.property?.place.key ?? subject?.block.blockId ?? '';
    if (!subject || hasNoContent(endpoint, key, item.params)) {
      chunk[endpoint.name] = noContent();
      continue;
    }
    chunk[endpoint.name] = ok(resultFor(endpoint, subject, item.params, nowMs));
    delivered.push(endpoint);
  }
  if (item.meta) chunk.meta = item.meta.value;
  return { chunk, delivered };
}

export function propertyChunk(endpoints: readonly Endpoint[], item: RequestItem, onTestList: TestListCheck | undefined, nowMs: number): BuiltChunk {
  let resolution: Resolution = resolveProperty(item.identifiers);
  if (resolution.matched && onTestList && !onTestList(resolution.place.key)) {
    resolution = { matched: false, errors: [NOT_IN_TEST_LIST], changes: [] };
  }
  const subject = resolution.matched
    ? { block: blockPlace(resolution.place.blockId), property: { place: resolution.place, facts: propertyFacts(resolution.place) } }
    : undefined;
  const built = sections(endpoints, subject, item, nowMs);
  return { chunk: { address_info: addressInfo(resolution, item.requested), ...built.chunk }, delivered: built.delivered };
}

export function blockChunk(endpoints: readonly Endpoint[], item: RequestItem, onTestList: TestListCheck | undefined, nowMs: number): BuiltChunk {
  const blockId = item.identifiers.block_id!;
  const allowed = !onTestList || onTestList(blockId);
  const built = sections(endpoints, allowed ? { block: blockPlace(blockId) } : undefined, item, nowMs);
  return { chunk: { block_info: { block_id: blockId }, ...built.chunk }, delivered: built.delivered };
}

/** The subject keys of identifier sets, for building the test list. */
export function propertyKeyOf(identifiers: Readonly<Record<string, string>>): string | undefined {
  const resolution = resolveProperty(identifiers);
  return resolution.matched ? resolution.place.key : undefined;
}
