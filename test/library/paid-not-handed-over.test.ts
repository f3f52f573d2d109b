import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type Client, type RunEvent } from '../../src/library/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { envFor, WIDE_OPEN } from '../helpers/sandbox-per-test.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const homes = (count: number) => Array.from({ length: count }, (_, i) => ({ address: `${i + 1} Main St`, zipcode: '90274' }));

let sandbox: RunningSandbox;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await sandbox.close();
});

/** A batch of 60 aborted once its fifth record is taken, while others are in flight or waiting: what was handed over, and what it heard. */
async function abortedBatch(store: string | false) {
  // Each answer takes a while, so that requests are in flight when the caller stops.
  sandbox = await startSandbox({ rateLimits: WIDE_OPEN, latencyMs: [40, 40] });
  const events: RunEvent[] = [];
  const client = createClient({ env: envFor(sandbox), store, batchSize: 5, concurrency: 4, onEvent: (event) => events.push(event) });
  clients.push(client);
  const stop = new AbortController();
  const run = client.property.value.batch(homes(60), { signal: stop.signal });
  let handedOver = 0;
  const thrown = await (async () => {
    for await (const record of run) {
      handedOver += record.cost.components;
      if (record.row === 5) stop.abort(new Error('enough'));
    }
  })().catch((error: unknown) => error);
  return { thrown, handedOver, summary: await run.summary(), events };
}

describe('a batch its caller stops', () => {
  it('with store: false, counts the paid answers it did not hand over, in the summary and an event', async () => {
    const { thrown, handedOver, summary, events } = await abortedBatch(false);
    expect(thrown).toEqual(new Error('enough'));
    const paid = summary.paidNotHandedOver!;
    expect(paid.records).toBeGreaterThan(0);
    expect(paid.costUsd).toBeCloseTo(paid.components * 0.25, 6);
    // Everything the service charged is either in the caller's hands or counted.
    expect(sandbox.usage().components).toBe(handedOver + paid.components);
    const said = events.filter((event) => event.type === 'paid-not-handed-over');
    expect(said).toEqual([{ type: 'paid-not-handed-over', ...paid, kept: false }]);
    expect(events.at(-1)).toEqual({ type: 'end', summary });
  });

  it('with a store, says the answers it did not hand over are kept', async () => {
    const { summary, events } = await abortedBatch(tempStorePath());
    expect(events.find((event) => event.type === 'paid-not-handed-over')).toEqual({
      type: 'paid-not-handed-over',
      ...summary.paidNotHandedOver!,
      kept: true,
    });
  });
});
