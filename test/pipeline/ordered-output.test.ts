import { describe, expect, it } from 'vitest';
import type { OutputRecord } from '../../src/model/record.js';
import { OrderedOutput } from '../../src/pipeline/ordered-output.js';
import { RunStats } from '../../src/pipeline/run-stats.js';

function collecting() {
  const rows: number[] = [];
  return { rows, writer: { write: (record: OutputRecord) => void rows.push(record.row), close: () => Promise.resolve() } };
}

const record = (row: number): OutputRecord => ({ row, status: 'ok', input: {} });

describe('ordered output', () => {
  it('writes records in row order however they arrive, and holds back those after a gap', async () => {
    const { rows, writer } = collecting();
    const output = new OrderedOutput(writer, new RunStats());
    for (const row of [3, 2, 5]) output.add(record(row));
    await output.flush();
    expect(rows).toEqual([]);
    expect(output.waiting).toBe(3);
    output.add(record(1));
    await output.flush();
    expect(rows).toEqual([1, 2, 3]);
    expect(output.nextRow).toBe(4);
    expect(output.waiting).toBe(1);
  });

  it('keeps every record when one arrives thousands of rows ahead of the next to write', async () => {
    const { rows, writer } = collecting();
    const stats = new RunStats();
    const output = new OrderedOutput(writer, stats, { startRow: 11 });
    const arrival = Array.from({ length: 5_000 }, (_, i) => 5_010 - i);
    for (const row of arrival) output.add(record(row));
    await output.flush();
    expect(rows).toEqual(Array.from({ length: 5_000 }, (_, i) => 11 + i));
    expect(stats.byStatus.ok).toBe(5_000);
    expect(output.waiting).toBe(0);
  });

  it("holds a bought answer's row, and the rows next to it, until the store has the answer", async () => {
    const { rows, writer } = collecting();
    const output = new OrderedOutput(writer, new RunStats());
    let keep!: () => void;
    const kept = new Promise<void>((resolve) => (keep = resolve));
    output.add(record(1));
    output.add(record(2), kept);
    output.add(record(3));
    // The caller (the run, reading on) does not wait for the store.
    await output.flush();
    expect(rows).toEqual([]);
    keep();
    // Nor does the output wait for the next flush: it writes them once the store has the answer.
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows).toEqual([1, 2, 3]);
  });

  it('waits for the store once for every row handed over before the wait, not once a row', async () => {
    const { rows, writer } = collecting();
    const output = new OrderedOutput(writer, new RunStats());
    let waits = 0;
    // A thenable that counts how often it is awaited.
    const kept = {
      then(resolve: () => void) {
        waits += 1;
        resolve();
      },
    } as unknown as Promise<void>;
    for (const row of [1, 2, 3, 4]) output.add(record(row), kept);
    await output.finish();
    expect(rows).toEqual([1, 2, 3, 4]);
    expect(waits).toBe(1);
  });
});
