import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { openInput } from '../../src/input/open-input.js';
import { readAll } from './read-all.js';

const dir = mkdtempSync(join(tmpdir(), 'propdata-pipes-'));
const noStdin = Readable.from([]);
const ROWS = 20_000; // far more than a pipe holds (64 KiB), so any second reader would take some
const writers: ReturnType<typeof spawn>[] = [];
afterEach(() => writers.splice(0).forEach((writer) => writer.kill()));

/** A FIFO that another process fills with `content`, as `propdata --input <(...)` sees it. */
function fifoOf(name: string, content: string): string {
  const source = join(dir, `${name}.source`);
  const fifo = join(dir, name);
  writeFileSync(source, content);
  execFileSync('mkfifo', [fifo]);
  writers.push(spawn('sh', ['-c', 'cat "$0" > "$1"', source, fifo], { stdio: 'ignore' }));
  return fifo;
}

describe('input that is not a regular file', () => {
  it('reads every CSV row of a FIFO once and in order, and refuses to count it ahead', async () => {
    const lines = Array.from({ length: ROWS }, (_, i) => `${i + 1} MAIN ST,21204`);
    const fifo = fifoOf('rows.csv', `address,zipcode\n${lines.join('\n')}\n`);
    const input = await openInput({ path: fifo, stdin: noStdin });
    expect(input.seekable).toBe(false);
    // No size to measure the read against: no progress by bytes.
    expect(input.progress).toBeUndefined();
    const { rows, error } = await readAll(input);
    expect(error).toBeUndefined();
    expect(rows.map((row) => row.columns.address)).toEqual(lines.map((line) => line.split(',')[0]));
  });

  it("reads every JSONL row of a FIFO once and in order, without a key pre-scan: columns are the first object's keys", async () => {
    const objects = Array.from({ length: ROWS }, (_, i) => JSON.stringify(i === 1 ? { n: i, extra: true } : { n: i, zipcode: '21204' }));
    const fifo = fifoOf('rows.jsonl', `${objects.join('\n')}\n`);
    const input = await openInput({ path: fifo, stdin: noStdin });
    expect(input.seekable).toBe(false);
    const { columns, rows, error } = await readAll(input);
    expect(error).toBeUndefined();
    expect(columns).toEqual(['n', 'zipcode']);
    expect(rows.map((row) => row.columns.n)).toEqual(objects.map((_, i) => i));
  });

  it('calls stdin not seekable and a regular file seekable', async () => {
    expect((await openInput({ path: '-', stdin: Readable.from([Buffer.from('a\n1\n')]) })).seekable).toBe(false);
    const path = join(dir, 'plain.csv');
    writeFileSync(path, 'a\n1\n');
    const input = await openInput({ path, stdin: noStdin });
    expect(input.seekable).toBe(true);
    expect((await readAll(input)).rows).toHaveLength(1);
    expect(input.progress).toEqual({ byteSize: 4, bytesRead: 4, rowsRead: 1, done: true });
  });
});
