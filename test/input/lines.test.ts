import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/input/lines.js';
import { bytes } from './read-all.js';

const tooLong = (line: number) => new Error(`line ${line} too long`);

async function split(content: string | Buffer, chunkSize?: number, maxBytes = 1024): Promise<string[]> {
  const texts: string[] = [];
  for await (const line of splitLines(bytes(content, chunkSize), maxBytes, tooLong)) texts.push(line.text);
  return texts;
}

async function readlineSplit(content: string): Promise<string[]> {
  const texts: string[] = [];
  for await (const text of createInterface({ input: bytes(content), crlfDelay: Infinity })) texts.push(text);
  return texts;
}

describe('splitLines', () => {
  it('splits on LF, CRLF and CR, numbering physical lines', async () => {
    const lines: unknown[] = [];
    for await (const line of splitLines(bytes('a\nb\r\nc\rd'), 1024, tooLong)) lines.push(line);
    expect(lines).toEqual([
      { text: 'a', number: 1 },
      { text: 'b', number: 2 },
      { text: 'c', number: 3 },
      { text: 'd', number: 4 },
    ]);
  });

  it('splits as readline does, whatever the chunk boundaries (CRLF and multi-byte characters cut in two)', async () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = ['a', 'é', '€', '\n', '\r', '\r\n', ' ', '{'];
    const text = Array.from({ length: 3000 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const expected = await readlineSplit(text);
    for (const chunkSize of [1, 2, 3, 7, 64, 100_000]) expect(await split(text, chunkSize), `chunks of ${chunkSize}`).toEqual(expected);
  });

  it('throws tooLong with the line number once a line passes the cap, within one chunk or across many', async () => {
    await expect(split('ok\n12345678\n', 100, 8)).resolves.toEqual(['ok', '12345678']);
    await expect(split('ok\n123456789\n', 100, 8)).rejects.toThrow('line 2 too long');
    await expect(split('ok\n123456789', 2, 8)).rejects.toThrow('line 2 too long');
  });

  it('does not hold a line past the cap: a stream without line breaks fails after maxBytes, not at its end', async () => {
    let produced = 0;
    const endless = Readable.from(
      (function* () {
        const chunk = Buffer.alloc(1024, 'x');
        for (;;) {
          produced += chunk.length;
          yield chunk;
        }
      })(),
    );
    const lines = splitLines(endless, 64 * 1024, tooLong);
    await expect(lines.next()).rejects.toThrow('line 1 too long');
    expect(produced).toBeLessThanOrEqual(80 * 1024);
  });
});
