import { testLists, type TestLists } from './test-list.js';

/**
 * The service's Test Lists: per level, the items a test key may query. The spec names them but
 * shows neither paths nor bodies; the sandbox answers a GET at these paths with a JSON array of
 * identifier objects, each ready to send as an item.
 */
const PATHS: Readonly<Record<string, keyof TestLists>> = {
  '/v2/property/test_addresses': 'property',
  '/v2/block/test_blocks': 'block',
  '/v2/zip/test_zipcodes': 'zip',
  '/v2/msa/test_msas': 'msa',
};

/** The test list served at a path, or undefined when the path is not one. */
export function testListAt(pathname: string): unknown[] | undefined {
  const level = PATHS[pathname.replace(/\/+$/, '')];
  return level && testLists()[level];
}
