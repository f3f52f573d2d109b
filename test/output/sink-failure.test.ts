import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openOutput } from '../../src/output/open-output.js';
import { openSink } from '../../src/output/sink.js';

/** A pipe whose reader has gone: every write fails, as stdout does after `| head`. */
function closedPipe(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) });
}

describe('output failure, seen without writing again', () => {
  it('rejects `failed` as soon as the stream fails, with one clear line', async () => {
    const sink = await openSink(undefined, closedPipe(), false);
    expect(sink.write('a\n')).toBeUndefined();
    await expect(sink.failed).rejects.toThrow(/^cannot write to stdout: the reader closed the pipe \(EPIPE\); the output is partial$/);
  });

  it('never settles `failed` for an output that works, and needs no listener', async () => {
    const sink = await openSink(undefined, new Writable({ write: (_chunk, _encoding, done) => done() }), false);
    let settled = false;
    sink.failed.then(
      () => (settled = true),
      () => (settled = true),
    );
    await sink.write('a\n');
    await sink.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
  });

  it('passes `failed` on to the record writer the batch holds', async () => {
    const writer = await openOutput({
      stdout: closedPipe(),
      format: 'jsonl',
      inputColumns: ['address'],
      level: 'property',
      sections: ['property/value'],
      withMeta: false,
      append: false,
      excel: false,
    });
    void writer.write({ row: 1, status: 'ok', input: { address: '1 Main St' } });
    await expect(writer.failed).rejects.toMatchObject({ code: 'E_OUTPUT' });
  });
});

describe('what the file holds after a failure', () => {
  const settings = (path: string, format: 'csv' | 'jsonl' | 'json') => ({
    path,
    format,
    stdout: closedPipe(),
    inputColumns: ['address'],
    level: 'property' as const,
    sections: ['property/value'],
    withMeta: false,
    append: false,
    excel: false,
  });
  const records = [
    { row: 1, status: 'ok' as const, input: { address: '1 Main St' } },
    { row: 2, status: 'no_content' as const, input: { address: '2 Main St' } },
    { row: 3, status: 'not_sent' as const, input: { address: '3 Main St' }, unsent: true as const },
  ];

  it.skipIf(!existsSync('/dev/full'))(
    'a full disk (/dev/full) took none of the records handed to the writer: each is named as unwritten',
    async () => {
      for (const format of ['csv', 'jsonl', 'json'] as const) {
        const writer = await openOutput(settings('/dev/full', format));
        for (const record of records) await writer.write(record);
        await expect(writer.close()).rejects.toThrow(/the disk is full/);
        expect(writer.unwritten?.(), format).toEqual([
          { row: 1, status: 'ok' },
          { row: 2, status: 'no_content' },
          { row: 3, status: 'not_sent', unsent: true },
        ]);
      }
    },
  );

  it('a file that took everything has none unwritten', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'propdata-written-')), 'out.csv');
    const writer = await openOutput(settings(path, 'csv'));
    for (const record of records) await writer.write(record);
    await writer.close();
    expect(writer.unwritten?.()).toEqual([]);
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(4);
  });
});
