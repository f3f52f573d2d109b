import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openSink } from '../../src/output/sink.js';

/** A reader that takes one chunk at a time, later: every write has to wait for 'drain'. */
function slowReader(received: string[]): Writable {
  return new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk.toString());
      setImmediate(done);
    },
  });
}

describe('output sink', () => {
  it('waits for a slow reader without adding a listener per wait, and loses nothing', async () => {
    const received: string[] = [];
    const stream = slowReader(received);
    const sink = await openSink(undefined, stream, false);
    const big = 'x'.repeat(300 * 1024);
    for (let i = 0; i < 30; i++) await sink.write(`${i}:${big}\n`);
    await sink.close();
    expect(stream.listenerCount('error')).toBeLessThanOrEqual(1);
    expect(
      received
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(':')[0]),
    ).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
  });

  it('keeps one wait for drain at a time when records keep coming while the reader is slow', async () => {
    const received: string[] = [];
    const stream = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        received.push(chunk.toString());
        setTimeout(done, 2);
      },
    });
    const sink = await openSink(undefined, stream, false);
    let most = 0;
    for (let turn = 0; turn < 40; turn++) {
      await sink.write(`${turn}\n`);
      most = Math.max(most, stream.listenerCount('drain'), stream.listenerCount('error') - 1);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await sink.close();
    expect(most).toBeLessThanOrEqual(1);
    expect(received.join('')).toBe(Array.from({ length: 40 }, (_, turn) => `${turn}\n`).join(''));
  });

  it('writes what one turn of the event loop hands over in one write, in order', async () => {
    const received: string[] = [];
    const sink = await openSink(undefined, slowReader(received), false);
    await Promise.all(['a\n', 'b\n', 'c\n'].map((text) => sink.write(text) ?? Promise.resolve()));
    await sink.close();
    expect(received).toEqual(['a\nb\nc\n']);
  });

  it('reports a failing stream on the next write or on close, as one clear error', async () => {
    const broken = new Writable({ write: (_chunk, _encoding, done) => done(Object.assign(new Error('EPIPE'), { code: 'EPIPE' })) });
    const sink = await openSink(undefined, broken, false);
    await sink.write('a\n');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(sink.close()).rejects.toThrow(/cannot write to stdout: the reader closed the pipe/);
  });
});
