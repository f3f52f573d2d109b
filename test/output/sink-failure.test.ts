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
