import { propertyKeyOf, type TestListCheck } from './generate/chunk.js';
import { TEST_ITEMS } from './test-items.js';

/** Test-list membership by subject key: resolved property keys, and block ids. */
export function testListCheck(): TestListCheck {
  const keys = new Set<string>(TEST_ITEMS.block.map((item) => item.block_id));
  for (const item of TEST_ITEMS.property) {
    const key = propertyKeyOf(item);
    if (key) keys.add(key);
  }
  return (subjectKey) => keys.has(subjectKey);
}
