import { describe, expect, it } from 'vitest';
import { chunkForRow, Deduplicator } from '../../src/batching/deduplicator.js';
import type { SendableItem } from '../../src/batching/batch.js';

const row = (n: number, item: Record<string, string>): SendableItem => ({ row: n, columns: {}, item });

describe('Deduplicator', () => {
  it('sends an item once and attaches later identical rows to it, whatever their meta', () => {
    const dedupe = new Deduplicator(10);
    const first = dedupe.decide(row(1, { address: '1 Main St', zipcode: '21201', meta: 'a' }));
    expect(first.kind).toBe('send');
    expect(dedupe.decide(row(2, { address: '1 Main St', zipcode: '21201', meta: 'b' })).kind).toBe('joined');
    expect(dedupe.decide(row(3, { address: '2 Main St', zipcode: '21201' })).kind).toBe('send');
    expect(first.kind === 'send' && first.pending.duplicates.map((d) => d.row)).toEqual([2]);
    expect(dedupe.saved).toBe(1);
  });

  it('reuses answers for the most recent distinct items only', () => {
    const dedupe = new Deduplicator(1);
    for (const address of ['A', 'B']) {
      const decision = dedupe.decide(row(1, { address }));
      if (decision.kind === 'send') dedupe.settle(decision.pending, { chunk: { address }, status: 'ok' });
    }
    expect(dedupe.decide(row(3, { address: 'B' })).kind).toBe('answered');
    expect(dedupe.decide(row(4, { address: 'A' })).kind).toBe('send');
  });

  it('keeps an answer that is asked for again over one that is not, when it must make room', () => {
    const dedupe = new Deduplicator(2);
    const answer = (address: string) => {
      const decision = dedupe.decide(row(1, { address }));
      if (decision.kind === 'send') dedupe.settle(decision.pending, { chunk: { address }, status: 'ok' });
    };
    answer('A');
    answer('B');
    expect(dedupe.decide(row(3, { address: 'A' })).kind).toBe('answered');
    answer('C');
    expect(dedupe.decide(row(5, { address: 'A' })).kind).toBe('answered');
    expect(dedupe.decide(row(6, { address: 'C' })).kind).toBe('answered');
    expect(dedupe.decide(row(7, { address: 'B' })).kind).toBe('send');
  });

  it('forgets an item the store answered whole: a repeat is sent to be looked up again, and rows identical to it join it', () => {
    const dedupe = new Deduplicator(10);
    const first = dedupe.decide(row(1, { address: 'A', meta: 'a' }));
    if (first.kind === 'send') dedupe.answeredByStore(first.pending);
    const repeat = dedupe.decide(row(2, { address: 'A', meta: 'b' }));
    expect(repeat).toMatchObject({ kind: 'send', pending: { prepared: { row: 2 }, duplicates: [] } });
    expect(dedupe.decide(row(3, { address: 'A' })).kind).toBe('joined');
    expect(repeat.kind === 'send' && repeat.pending.duplicates.map((d) => d.row)).toEqual([3]);
    // The joined row is deduplication's; the repeat is the store's, which answers it again.
    expect(dedupe.saved).toBe(1);
    // Bought instead (the store no longer had it), its answer is remembered.
    if (repeat.kind === 'send') dedupe.settle(repeat.pending, { chunk: { address: 'A' }, status: 'ok' });
    expect(dedupe.decide(row(4, { address: 'A' }))).toEqual({ kind: 'answered', answer: { chunk: { address: 'A' }, status: 'ok' } });
  });

  it('reuses an answer remembered as the text of its response, parsed as the whole answer was', () => {
    const dedupe = new Deduplicator(10);
    const chunks = [{ address_info: { address: 'A, "x"' }, 'property/value': { api_code: 0 } }, { address_info: { address: 'B' } }];
    const body = JSON.stringify(chunks);
    const decisions = ['A', 'B'].map((address, i) => dedupe.decide(row(i + 1, { address })));
    decisions.forEach((decision, i) => {
      if (decision.kind === 'send') dedupe.settle(decision.pending, { chunk: chunks[i]!, status: 'ok' }, { body }, i);
    });
    const again = dedupe.decide(row(3, { address: 'B' }));
    expect(again).toEqual({ kind: 'answered', answer: { chunk: chunks[1], status: 'ok' } });
    expect(dedupe.decide(row(4, { address: 'B' }))).toEqual(again);
  });

  it('keeps an item on its way whatever answers come meanwhile, and remembers its answer as the newest', () => {
    const dedupe = new Deduplicator(1);
    const onItsWay = dedupe.decide(row(1, { address: 'A' }));
    for (const address of ['B', 'C']) {
      const decision = dedupe.decide(row(2, { address }));
      if (decision.kind === 'send') dedupe.settle(decision.pending, { chunk: { address }, status: 'ok' });
    }
    expect(dedupe.decide(row(3, { address: 'A' })).kind).toBe('joined');
    expect(dedupe.decide(row(4, { address: 'C' })).kind).toBe('answered');
    if (onItsWay.kind === 'send') dedupe.settle(onItsWay.pending, { chunk: { address: 'A' }, status: 'ok' });
    expect(dedupe.decide(row(5, { address: 'A' }))).toEqual({ kind: 'answered', answer: { chunk: { address: 'A' }, status: 'ok' } });
    expect(dedupe.decide(row(6, { address: 'C' })).kind).toBe('send');
  });

  it('does not remember failures: a later identical row is sent again', () => {
    const dedupe = new Deduplicator(10);
    const decision = dedupe.decide(row(1, { address: 'A' }));
    if (decision.kind === 'send') dedupe.settle(decision.pending, undefined);
    expect(dedupe.decide(row(2, { address: 'A' })).kind).toBe('send');
  });

  it("echoes each row's own meta, in the service's member order", () => {
    const chunk = { address_info: {}, meta: 'a', 'property/value': {} };
    expect(Object.keys(chunkForRow(chunk, row(2, { address: 'A', meta: 'b' })))).toEqual(['address_info', 'meta', 'property/value']);
    expect(chunkForRow(chunk, row(2, { address: 'A', meta: 'b' })).meta).toBe('b');
    expect('meta' in chunkForRow(chunk, row(2, { address: 'A' }))).toBe(false);
  });

  it('puts meta back where the service echoed it inside address_info, and adds none at the top', () => {
    const nested = {
      address_info: { city: 'Towson', status: { match: true, requested_item: { address: 'A', meta: 'a' } } },
      'property/value': {},
    };
    const b = chunkForRow(nested, row(2, { address: 'A', meta: 'b' }));
    expect('meta' in b).toBe(false);
    expect(b).toEqual({
      address_info: { city: 'Towson', status: { match: true, requested_item: { address: 'A', meta: 'b' } } },
      'property/value': {},
    });
    expect(nested.address_info.status.requested_item.meta).toBe('a');
    const none = chunkForRow(nested, row(3, { address: 'A' }));
    expect(none).toEqual({
      address_info: { city: 'Towson', status: { match: true, requested_item: { address: 'A' } } },
      'property/value': {},
    });
    const flat = { address_info: { meta: 'a', city: 'Towson' }, 'property/value': {} };
    const c = chunkForRow(flat, row(4, { address: 'A', meta: 'c' }));
    expect(c).toEqual({ address_info: { meta: 'c', city: 'Towson' }, 'property/value': {} });
    expect(Object.keys(c.address_info as object)).toEqual(['meta', 'city']);
  });
});
