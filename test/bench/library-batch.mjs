import { createClient } from '../../dist/library/index.js';

// The library as a user's script runs it: `property/value` for ITEMS items that an async generator
// makes one at a time (nothing holds them all), against the service at BASE_URL, no store, records
// read in a `for await` loop that keeps nothing but counts. Prints one JSON line: the records, whether
// they came in input order, the run's summary. Plain node, as a user's script runs: no V8 flags
// (bin/propdata.js sets its own; a library does not set them for its caller).
// Under `node --expose-gc` it also measures the live set: the heap after a forced collection every
// 5,000 records (mid-run, the pipeline full) and at the end (the largest is printed as `liveBytes`).
// Usage: node library-batch.mjs BASE_URL ITEMS
const [baseUrl, itemsText] = process.argv.slice(2);
const items = Number(itemsText);

async function* addresses(count) {
  for (let i = 1; i <= count; i++) yield { address: `${i} Main St`, zipcode: '90274' };
}

// Without rate headers the client paces at `rate`: make it no limit at all, as the CLI's figure does with --rate.
const client = createClient({ baseUrl, key: 'sandbox', secret: 'sandbox', store: false, rate: 1_000_000_000 });
let records = 0;
let inOrder = true;
let liveBytes = 0;
const sampleLive = () => {
  globalThis.gc();
  liveBytes = Math.max(liveBytes, process.memoryUsage().heapUsed);
};
const run = client.property.value.batch(addresses(items));
for await (const record of run) {
  records += 1;
  if (record.row !== records) inOrder = false;
  if (globalThis.gc && records % 5_000 === 0) sampleLive();
}
// Taken before the loop's end releases the run: the pipeline's window is still held.
const summary = await run.summary();
if (globalThis.gc) sampleLive();
await client.close();
console.log(JSON.stringify({ records, inOrder, summary, ...(globalThis.gc ? { liveBytes } : {}) }));
