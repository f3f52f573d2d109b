import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const deep = `[${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}]`;

describe('a one-off answered with a chunk that cannot be used', () => {
  for (const [name, body] of [
    ['null', '[null]'],
    ['a number', '[7]'],
    ['a string', '["x"]'],
    ['an array', '[[{"address_info":{}}]]'],
    ['nested 100,000 levels', deep],
  ] as const) {
    it(`prints one clear line and exits 1, without a retry, when the chunk is ${name}`, async () => {
      server = await startScriptedServer(() => ({ status: 200, body }));
      const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's3cret' };
      for (const tty of [false, true]) {
        const result = await runMain(['property', 'value', '--slug', 'abc'], { env, tty });
        expect(result.code).toBe(1);
        // On a terminal the spinner's control sequences come first, on the same line.
        expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/propdata: the service's answer for this item is/)]);
        expect(result.stdout).toBe('');
      }
      expect(server.requests).toHaveLength(2);
    });
  }
});
