import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

// What peak memory a library batch would have if the library ran its engine in a worker thread
// of its own, sized by resourceLimits (a worker's heap can be capped without touching the caller's
// V8 flags): a prototype for the Library memory figure, not what the library does. The batch of
// library-batch.mjs (property/value for ITEMS items from an async generator, no store) runs in
// the worker; its records come to the main thread 100 at a time, cloned, with at most 4 arrays
// unacknowledged (a slow loop must hold the worker back). Prints the same JSON line.
// Usage: node library-batch-worker.mjs BASE_URL ITEMS
/** The worker's heap: the young generation and the old, in MB. */
const LIMITS = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 48 };
const PER_MESSAGE = 100;
const UNACKNOWLEDGED = 4;

if (isMainThread) {
  const [baseUrl, itemsText] = process.argv.slice(2);
  const worker = new Worker(new URL(import.meta.url), { workerData: { baseUrl, items: Number(itemsText) }, resourceLimits: LIMITS });
  let records = 0;
  let inOrder = true;
  let summary;
  worker.on('message', (message) => {
    if (message.summary) {
      summary = message.summary;
      return;
    }
    for (const record of message.records) {
      records += 1;
      if (record.row !== records) inOrder = false;
    }
    worker.postMessage('ack');
  });
  await new Promise((resolve, reject) => {
    worker.on('exit', resolve);
    worker.on('error', reject);
  });
  console.log(JSON.stringify({ records, inOrder, summary }));
} else {
  const { createClient } = await import('../../dist/library/index.js');
  const { baseUrl, items } = workerData;
  let outstanding = 0;
  let acknowledged;
  parentPort.on('message', () => {
    outstanding -= 1;
    acknowledged?.();
  });
  const send = async (records) => {
    while (outstanding >= UNACKNOWLEDGED) await new Promise((resolve) => (acknowledged = resolve));
    outstanding += 1;
    parentPort.postMessage({ records });
  };
  async function* addresses(count) {
    for (let i = 1; i <= count; i++) yield { address: `${i} Main St`, zipcode: '90274' };
  }
  const client = createClient({ baseUrl, key: 'sandbox', secret: 'sandbox', store: false, rate: 1_000_000_000 });
  const run = client.property.value.batch(addresses(items));
  let pending = [];
  for await (const record of run) {
    pending.push(record);
    if (pending.length === PER_MESSAGE) {
      await send(pending);
      pending = [];
    }
  }
  if (pending.length > 0) await send(pending);
  parentPort.postMessage({ summary: await run.summary() });
  await client.close();
  parentPort.close();
}
