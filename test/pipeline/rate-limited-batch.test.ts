import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkFor, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { runMain } from '../helpers/run-main.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a 429 during a batch', () => {
  it('pauses the whole pipeline until X-RateLimit-Reset, sends nothing meanwhile, then resends', async () => {
    const resetAt = Math.floor(Date.now() / 1000) + 2;
    let rejectedAt = 0;
    server = await startScriptedServer((request, i) => {
      const items = JSON.parse(request.body) as unknown[];
      const headers = { 'x-ratelimit-period': '60', 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '500', 'x-ratelimit-reset': String(resetAt) };
      if (i === 1) {
        rejectedAt = Date.now();
        return { status: 429, body: '{"message":"rate limit exceeded"}', headers: { ...headers, 'x-ratelimit-remaining': '0' } };
      }
      return { status: 200, body: JSON.stringify(items.map(() => chunkFor(['property/value']))), headers };
    });
    const dir = mkdtempSync(join(tmpdir(), 'propdata-429-'));
    const lines = ['address,zipcode', ...Array.from({ length: 50 }, (_, i) => `${i + 1} Elm St,21201`)];
    writeFileSync(join(dir, 'in.csv'), `${lines.join('\n')}\n`);
    const result = await runMain(
      ['property', 'value', '-i', join(dir, 'in.csv'), '-o', join(dir, 'out.csv'), '--batch-size', '5', '--concurrency', '4', '--report', join(dir, 'r.json')],
      { env: { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's' } },
    );
    expect(result.code).toBe(0);
    const after = server.requests.filter((request) => request.at > rejectedAt);
    expect(after.length).toBeGreaterThan(0);
    // Requests that arrived while the 429 was being handled may have been sent before it; none
    // was sent after it until the reset.
    const sentDuringPause = after.filter((request) => request.at < resetAt * 1000 && request.at - rejectedAt > 50);
    expect(sentDuringPause).toEqual([]);
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    expect(report.rateLimitWaits).toBe(1);
    expect(report.records.ok).toBe(50);
    const totalItems = server.requests.reduce((sum, request) => sum + (JSON.parse(request.body) as unknown[]).length, 0);
    expect(totalItems).toBe(55); // the rejected batch of 5 was sent twice, nothing else
  });
});
