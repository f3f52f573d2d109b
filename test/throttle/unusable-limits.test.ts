import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { chunkFor, scriptedServerPerTest } from '../helpers/scripted-server.js';

/**
 * A service whose X-RateLimit-Limit no pacing can keep: a window of 0, a negative one, a
 * fractional one. The run says what the headers said and that it cannot pace by them, writes what
 * was answered, and stops; it used to take the limit for the largest request and ask for fewer
 * endpoints per mget (exit 2).
 */
describe('a rate limit propdata cannot pace by', () => {
  const server = scriptedServerPerTest();

  for (const limit of ['0', '-5', '2.5']) {
    it(`stops after the first answer and says the service stated ${limit} (X-RateLimit-Limit: ${limit})`, async () => {
      const env = await server.serve((request) => {
        const items = JSON.parse(request.body) as unknown[];
        const headers = {
          'x-ratelimit-period': '60',
          'x-ratelimit-limit': limit,
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.ceil(Date.now() / 60_000) * 60),
        };
        return { status: 200, body: JSON.stringify(items.map(() => chunkFor(['property/value']))), headers };
      });
      const dir = mkdtempSync(join(tmpdir(), 'propdata-limit-'));
      const input = join(dir, 'in.csv');
      writeFileSync(input, `address,zipcode\n${Array.from({ length: 30 }, (_, i) => `${i + 1} Main St,21201`).join('\n')}\n`);
      const output = join(dir, 'out.csv');
      const result = await runMain(['property', 'value', '-i', input, '-o', output, '--no-store', '-q'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `the service's X-RateLimit-Limit states ${limit} components per 60 s, and propdata cannot pace by a limit that is not a whole number above 0`,
      );
      expect(result.stderr).not.toContain('fewer endpoints');
      // The first request (10 items) was answered and written; nothing else was sent, and the rest can be resumed.
      expect(server.current.requests).toHaveLength(1);
      expect(
        readFileSync(output, 'utf8')
          .trim()
          .split('\n')
          .slice(1, 11)
          .every((line) => line.includes(',ok,')),
      ).toBe(true);
      expect(result.stderr).toContain('--resume');
    });
  }
});
