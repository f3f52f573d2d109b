import type { TestListCheck } from './generate/chunk.js';
import { resolveProperty, type Place } from './generate/place.js';
import { TEST_ITEMS } from './test-items.js';

/** The items a test key may query, per level, as the test-list endpoints list them. */
export interface TestLists {
  property: Array<{ address: string; unit: string | null; city: string; state: string; zipcode: string; slug: string }>;
  block: Array<{ block_id: string }>;
  /** The test properties' ZIPs and metro areas. */
  zip: Array<{ zipcode: string }>;
  msa: Array<{ msa: string }>;
}

const unique = (values: string[]) => [...new Set(values)];

function testPlaces(): Place[] {
  return TEST_ITEMS.property.flatMap((item) => {
    const resolution = resolveProperty(item);
    return resolution.matched ? [resolution.place] : [];
  });
}

export function testLists(): TestLists {
  const places = testPlaces();
  return {
    property: places.map((place) => ({
      address: place.street,
      unit: place.unit,
      city: place.city,
      state: place.state,
      zipcode: place.zip,
      slug: place.slug,
    })),
    block: TEST_ITEMS.block.map(({ block_id }) => ({ block_id })),
    zip: unique(places.map((place) => place.zip)).map((zipcode) => ({ zipcode })),
    msa: unique(places.flatMap((place) => (place.msa ? [place.msa] : []))).map((msa) => ({ msa })),
  };
}

/**
 * Test-list membership by subject key: resolved property keys, block ids, `zip:<zipcode>` and
 * `msa:<msa>`. Built at the first test-key request: resolving the test items by city reads the
 * ZIP table's city index, which a sandbox never asked by a test key has no need of.
 */
export function testListCheck(): TestListCheck {
  let keys: Set<string> | undefined;
  const build = () => {
    const lists = testLists();
    return new Set<string>([
      ...testPlaces().map((place) => place.key),
      ...lists.block.map((item) => item.block_id),
      ...lists.zip.map((item) => `zip:${item.zipcode}`),
      ...lists.msa.map((item) => `msa:${item.msa}`),
    ]);
  };
  return (subjectKey) => (keys ??= build()).has(subjectKey);
}
