import { findEndpoint, isEndpointName, type Endpoint, type Level } from '../../catalog/index.js';
import { addressInfo } from './address-info.js';
import { msaArea, zipArea } from './areas.js';
import { blockFields, propertyFacts, type PropertyFacts } from './facts.js';
import { hasNoContent } from './no-content.js';
import { blockPlace, resolveProperty, type BlockPlace, type Place, type Resolution } from './place.js';
import { RULES, type RuleContext } from './rules/index.js';
import { resultRandom } from './rules/rule.js';
import { generate } from './schema-walk.js';
import type { RequestItem } from '../../wire/request-validation.js';

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

/** The levels whose items are areas, answered alike; property forms reach them through the property. */
export type AreaLevel = 'block' | 'zip' | 'msa';

interface Subject {
  /** The area of a level this subject lies in: the one asked for, or the property's block, ZIP or metro (none without a metro). */
  area(level: AreaLevel): BlockPlace | undefined;
  /** The key that makes a subject's 204s stable. */
  key: string;
  property?: { place: Place; facts: PropertyFacts };
}

/** The endpoint whose result an endpoint gives (itself, or the one it mirrors), and the area level that result is about. */
function sourceOf(endpoint: Endpoint): { ruleName: string; areaLevel: AreaLevel | undefined } {
  const source = endpoint.mirrors ? findEndpoint(endpoint.mirrors)! : endpoint;
  return { ruleName: source.name, areaLevel: source.level === 'property' ? undefined : (source.level as AreaLevel) };
}

/**
 * A result: the schema walked generically, then the endpoint's consistency rule (which may build it
 * from the facts alone, without the walk). The random source is seeded by the endpoint and the
 * subject (and the property_type, which selects different area statistics); client figures
 * and adjustments are applied by the rules, so sending them never reshuffles the rest of the result.
 * An area result is the same whether the area is asked for or reached through a property.
 */
function resultFor(
  endpoint: Endpoint,
  subject: Subject,
  area: BlockPlace | undefined,
  params: RequestItem['params'],
  nowMs: number,
): unknown {
  const { ruleName } = sourceOf(endpoint);
  const property = area ? undefined : subject.property;
  const subjectKey = area?.blockId ?? property!.place.key;
  // An absent property_type is its default: block/hcri without one answers as with SFD.
  const propertyType = params.property_type ?? endpoint.params.find((param) => param.name === 'property_type')?.default ?? '';
  const random = resultRandom(ruleName, subjectKey, String(propertyType));
  const generated = () =>
    generate(endpoint.result!, endpoint.target, {
      random,
      facts: property ? property.facts.fields : blockFields(area!),
      valueScale: property ? property.facts.valueMean : area!.typicalValue,
    });
  const rule = isEndpointName(ruleName) ? RULES[ruleName] : undefined;
  const context: RuleContext = { random, params, nowMs, block: area ?? subject.area('block')!, property: subject.property };
  return rule ? rule(generated, context) : generated();
}

function sections(endpoints: readonly Endpoint[], subject: Subject | undefined, item: RequestItem, nowMs: number): BuiltChunk {
  const chunk: Record<string, unknown> = {};
  const delivered: Endpoint[] = [];
  for (const endpoint of endpoints) {
    const { areaLevel } = sourceOf(endpoint);
    const area = areaLevel && subject?.area(areaLevel);
    // A property outside any metro area has no metro answers.
    if (!subject || (areaLevel && !area) || hasNoContent(endpoint, subject.key, item.params)) {
      chunk[endpoint.name] = noContent();
      continue;
    }
    chunk[endpoint.name] = ok(resultFor(endpoint, subject, area, item.params, nowMs));
    delivered.push(endpoint);
  }
  if (item.meta) chunk.meta = item.meta.value;
  return { chunk, delivered };
}

function propertySubject(place: Place): Subject {
  const areas: Record<AreaLevel, () => BlockPlace | undefined> = {
    block: () => blockPlace(place.blockId),
    zip: () => zipArea(place.zip),
    msa: () => (place.msa ? msaArea(place.msa) : undefined),
  };
  // Each area once per item, however many sections ask for it.
  const known = new Map<AreaLevel, BlockPlace | undefined>();
  const area = (level: AreaLevel) => {
    if (!known.has(level)) known.set(level, areas[level]());
    return known.get(level);
  };
  return { area, key: place.key, property: { place, facts: propertyFacts(place) } };
}

// Exported for the tests' fixtures (test/store/helpers/chunks.ts and others): answers shaped as the sandbox's.
export function propertyChunk(
  endpoints: readonly Endpoint[],
  item: RequestItem,
  onTestList: TestListCheck | undefined,
  nowMs: number,
): BuiltChunk {
  let resolution: Resolution = resolveProperty(item.identifiers);
  if (resolution.matched && onTestList && !onTestList(resolution.place.key)) {
    resolution = { matched: false, errors: [NOT_IN_TEST_LIST], changes: [] };
  }
  const subject = resolution.matched ? propertySubject(resolution.place) : undefined;
  const built = sections(endpoints, subject, item, nowMs);
  return { chunk: { address_info: addressInfo(resolution, item.requested), ...built.chunk }, delivered: built.delivered };
}

/** How each area level names its item: identifier, chunk member, test-list key and the area it is. */
const AREA_ITEMS: Readonly<
  Record<AreaLevel, { identifier: string; info: string; testKey: (code: string) => string; area: (code: string) => BlockPlace }>
> = {
  block: { identifier: 'block_id', info: 'block_info', testKey: (code) => code, area: blockPlace },
  zip: { identifier: 'zipcode', info: 'zipcode_info', testKey: (code) => `zip:${code}`, area: zipArea },
  msa: { identifier: 'msa', info: 'msa_info', testKey: (code) => `msa:${code}`, area: msaArea },
};

function areaChunk(level: AreaLevel) {
  const { identifier, info, testKey, area } = AREA_ITEMS[level];
  return (endpoints: readonly Endpoint[], item: RequestItem, onTestList: TestListCheck | undefined, nowMs: number): BuiltChunk => {
    const code = item.identifiers[identifier]!;
    const allowed = !onTestList || onTestList(testKey(code));
    const place = area(code);
    const subject: Subject | undefined = allowed ? { area: (asked) => (asked === level ? place : undefined), key: code } : undefined;
    const built = sections(endpoints, subject, item, nowMs);
    return { chunk: { [info]: { [identifier]: code }, ...built.chunk }, delivered: built.delivered };
  };
}

/** The chunk builder for a level's items: property, or one of the area levels. */
export function chunkBuilder(level: Level) {
  return level === 'property' ? propertyChunk : areaChunk(level as AreaLevel);
}
