import { describe, expect, it } from 'vitest';
import { addressRows, fakeWorld, runPipeline, type FakeWorld } from '../helpers/fake-pipeline.js';
import type { FakeReply, SeenRequest } from '../helpers/fake-service.js';

/**
 * A 400 names a problem, not always an item: the batch is halved until the offending items are
 * found (400s are not charged), and a request refused as a whole costs seven requests, not one per item.
 */

/** A service that refuses (400, with `message`) any request holding one of `refused` rows. */
function refusing(refused: Record<number, string>) {
  return (request: SeenRequest): FakeReply | undefined => {
    const culprit = request.rows.find((row) => row in refused);
    return culprit === undefined ? undefined : { status: 400, body: { code: 400, message: refused[culprit] } };
  };
}

async function run(world: FakeWorld, count: number, batchSize = 8) {
  await runPipeline(world, { rows: addressRows(count), batchSize, throttle: { initialPerMinute: 100_000 } });
  return world.written.map((record) => ({
    row: record.row,
    status: record.status,
    ...(record.error === undefined ? {} : { error: record.error }),
  }));
}

const ok = (row: number) => ({ row, status: 'ok' });

describe('a 400 for a batch', () => {
  it('is narrowed to the item that causes it: only that row is invalid_input, every other row answered once', async () => {
    const world = fakeWorld({ script: refusing({ 3: 'address is not a street address' }) });
    expect(await run(world, 8)).toEqual([
      ok(1),
      ok(2),
      { row: 3, status: 'invalid_input', error: 'the service rejected the request: address is not a street address' },
      ...[4, 5, 6, 7, 8].map(ok),
    ]);
    // The halves that were answered were charged once each; the 400s cost nothing.
    expect(world.service.charged.slice().sort((a, b) => a - b)).toEqual([1, 2, 4, 5, 6, 7, 8]);
    // 8 → 4 + 4 → 2 + 2 → 1 + 1: four 400s and three answers.
    expect(world.service.answered(400)).toHaveLength(4);
    expect(world.service.requests).toHaveLength(7);
  });

  it('finds several offending items, each with its own message', async () => {
    const world = fakeWorld({ script: refusing({ 2: 'unit is not valid', 7: 'zipcode is not a US ZIP code' }) });
    const records = await run(world, 8);
    expect(records.filter((record) => record.status !== 'ok')).toEqual([
      { row: 2, status: 'invalid_input', error: 'the service rejected the request: unit is not valid' },
      { row: 7, status: 'invalid_input', error: 'the service rejected the request: zipcode is not a US ZIP code' },
    ]);
    expect(world.service.charged.slice().sort((a, b) => a - b)).toEqual([1, 3, 4, 5, 6, 8]);
  });

  it('that rejects the request as a whole marks every item with the message after seven requests, not one per item', async () => {
    const world = fakeWorld({ script: () => ({ status: 400, body: { code: 400, message: 'malformed request' } }) });
    const records = await run(world, 8);
    expect(records).toEqual(
      Array.from({ length: 8 }, (_, i) => ({
        row: i + 1,
        status: 'invalid_input',
        error: 'the service rejected the request: malformed request',
      })),
    );
    // Both halves refused alike, then each half's halves too: the request itself is refused.
    expect(world.service.requests.map((request) => request.items.length)).toEqual([8, 4, 4, 2, 2, 2, 2]);
    expect(world.service.charged).toEqual([]);
  });

  it('of a single item makes it invalid_input at once, without another request', async () => {
    const world = fakeWorld({ script: refusing({ 1: 'address is not a street address' }) });
    expect(await run(world, 1)).toEqual([
      { row: 1, status: 'invalid_input', error: 'the service rejected the request: address is not a street address' },
    ]);
    expect(world.service.requests).toHaveLength(1);
  });

  it('does not hold up the other batches: rows after the refused batch are answered and written in order', async () => {
    const world = fakeWorld({ script: refusing({ 13: 'address is not a street address' }) });
    const records = await run(world, 40, 5);
    expect(records.map((record) => record.row)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(records.filter((record) => record.status !== 'ok').map((record) => record.row)).toEqual([13]);
  });
});

describe('two offending items, one in each half, refused with the same message', () => {
  // Both halves refused with the whole batch's message look like a wholesale rejection when there is
  // one bad item in each half: the message may not name the item, or name it by its place in the
  // request, as the sandbox does ("item 2: ..."), and rows 2 and 6 of 8 are both "item 2" of their half.
  it('keeps the good rows when the message does not name the item', async () => {
    const world = fakeWorld({ script: refusing({ 2: 'address is not a street address', 7: 'address is not a street address' }) });
    const records = await run(world, 8);
    expect(records.filter((record) => record.status !== 'ok').map((record) => record.row)).toEqual([2, 7]);
  });

  it('keeps the good rows when the message names the item by its place in the request', async () => {
    const bad = new Set([2, 6]);
    const world = fakeWorld({
      script: (request) => {
        const at = request.rows.findIndex((row) => bad.has(row));
        return at < 0 ? undefined : { status: 400, body: { code: 400, message: `item ${at + 1}: address is not a street address` } };
      },
    });
    const records = await run(world, 8);
    expect(records.filter((record) => record.status !== 'ok').map((record) => record.row)).toEqual([2, 6]);
  });
});
