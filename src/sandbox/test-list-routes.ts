import { resolveProperty } from './generate/place.js';
import { TEST_ITEMS } from './test-items.js';

/**
 * The service's Test Lists: per level, the items a test key may query. The spec names them but
 * shows neither paths nor bodies; the sandbox answers a GET at these paths with a JSON array of
 * identifier objects, each ready to send as an item.
 */
function testProperties(): Array<Record<string, string | null>> {
  return TEST_ITEMS.property.flatMap((item) => {
    const resolution = resolveProperty(item);
    if (!resolution.matched) return [];
    const { place } = resolution;
    return [{ address: place.street, unit: place.unit, city: place.city, state: place.state, zipcode: place.zip, slug: place.slug }];
  });
}

const unique = <T>(values: T[]) => [...new Set(values)];

const LISTS: Readonly<Record<string, () => unknown[]>> = {
  '/v2/property/test_addresses': testProperties,
  '/v2/block/test_blocks': () => TEST_ITEMS.block.map((item) => ({ block_id: item.block_id })),
  '/v2/zip/test_zipcodes': () => unique(testProperties().map((item) => item.zipcode!)).map((zipcode) => ({ zipcode })),
  '/v2/msa/test_msas': () =>
    unique(TEST_ITEMS.property.flatMap((item) => {
      const resolution = resolveProperty(item);
      return resolution.matched && resolution.place.msa ? [resolution.place.msa] : [];
    })).map((msa) => ({ msa })),
};

/** The test list served at a path, or undefined when the path is not one. */
export function testListAt(pathname: string): unknown[] | undefined {
  return LISTS[pathname.replace(/\/+$/, '')]?.();
}
