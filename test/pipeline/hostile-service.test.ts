import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/throttle/clock.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { runMain } from '../helpers/run-main.js';
import { chunkFor, startScriptedServer, type Script, type ScriptedServer } from '../helpers/scripted-server.js';

/** A service that misbehaves in ways the sandbox does not: far resets, bare 429s, slow answers, 5xx. */
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const RATE = {
  'x-ratelimit-period': '60',
  'x-ratelimit-limit': '100000',
  'x-ratelimit-remaining': '99999',
  'x-ratelimit-reset': '4102444800',
};
const ok = (body: string) => ({
  status: 200,
  body: JSON.stringify((JSON.parse(body) as unknown[]).map(() => chunkFor(['property/value']))),
  headers: RATE,
});

function input(rows = 20) {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-hostile-'));
  const path = join(dir, 'in.csv');
  writeFileSync(path, `address,zipcode\n${Array.from({ length: rows }, (_, i) => `${i + 1} Main St,21201`).join('\n')}\n`);
  return { dir, path };
}

/** A run against `script`; its waits (pacing, backoff, Retry-After) on `clock` when given: virtual, not endured. */
async function run(script: Script, extra: string[], rows = 20, { signal, clock }: { signal?: AbortSignal; clock?: Clock } = {}) {
  server = await startScriptedServer(script);
  const { dir, path } = input(rows);
  const output = join(dir, 'out.csv');
  const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's3cret' };
  const result = await runMain(['property', 'value', '-i', path, '-o', output, '--batch-size', '5', '--concurrency', '1', ...extra], {
    env,
    ...(signal ? { signal } : {}),
    ...(clock ? { clock } : {}),
  });
  const records = parse<Record<string, string>>(readFileSync(output, 'utf8'), { columns: true });
  return { ...result, records, dir, output };
}

describe('a hostile service', () => {
  it('a 429 whose reset is a day away stops the run at once: answered rows written, the reset named, exit 5', async () => {
    const dayAhead = String(Math.floor(Date.now() / 1000) + 86_400);
    const result = await run(
      (request, index) =>
        index < 2
          ? ok(request.body)
          : {
              status: 429,
              body: '{"message":"daily quota exhausted"}',
              headers: { ...RATE, 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': dayAhead },
            },
      [],
    );
    expect(result.code).toBe(5);
    expect(result.records).toHaveLength(10);
    expect(result.stderr).toMatch(/rate limit resets at \d{4}-\d\d-\d\dT/);
    expect(result.stderr).toMatch(/continue with:\n.*--resume/);
    expect(result.stderr).not.toMatch(/TimeoutOverflowWarning/);
  });

  it('429s without a reset wait with backoff, bounded by --max-wait, never turning rows into error', async () => {
    const clock = new FakeClock();
    const result = await run(
      (request, index) => (index < 1 ? ok(request.body) : { status: 429, body: '{"message":"slow down"}' }),
      ['--max-wait', '2s'],
      20,
      { clock },
    );
    expect(result.code).toBe(5);
    expect(result.records.every((record) => record._status === 'ok')).toBe(true);
    // It waited, and never longer than --max-wait at a time.
    expect(clock.slept.length).toBeGreaterThan(0);
    expect(Math.max(...clock.slept)).toBeLessThanOrEqual(2_000);
  });

  it('honours Retry-After', async () => {
    // Retry-After counts from the answer's arrival (Date.now()): the date follows the run's clock.
    const clock = new FakeClock().followDate();
    const times: number[] = [];
    const result = await run(
      (request, index) => {
        times.push(clock.now());
        return index === 1 ? { status: 429, body: '{"message":"wait"}', headers: { 'retry-after': '1' } } : ok(request.body);
      },
      ['-q'],
      10,
      { clock },
    );
    expect(result.code).toBe(0);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(1_000);
  });

  it('counts retried requests that timed out after being sent, which the service may have charged', async () => {
    // The second request is never answered: its deadline passes (a real one: a run's requests
    // keep real time) and it is sent again.
    const result = await run(
      (request, index) => (index === 1 ? new Promise<never>(() => undefined) : ok(request.body)),
      ['--timeout', '0.2'],
      10,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /1 retried requests had timed out or lost their connection after being sent, or had an unreadable answer/,
    );
    expect(result.records).toHaveLength(10);
  });

  it('a Ctrl-C during 5xx backoff ends the run promptly, with the summary and the resume command', async () => {
    const stop = new AbortController();
    /** The run's clock, which sends the Ctrl-C as the run begins its wait after the 503. */
    class InterruptedInBackoff extends FakeClock {
      armed = false;
      override sleep(ms: number, signal?: AbortSignal): Promise<void> {
        if (this.armed) {
          this.armed = false;
          queueMicrotask(() => stop.abort());
        }
        return super.sleep(ms, signal);
      }
    }
    const clock = new InterruptedInBackoff();
    const result = await run(
      (request, index) => {
        if (index === 1) clock.armed = true;
        return index === 0 ? ok(request.body) : { status: 503, body: 'down' };
      },
      ['--max-retries', '10'],
      20,
      { signal: stop.signal, clock },
    );
    expect(result.code).toBe(130);
    expect(result.records).toHaveLength(5);
    expect(result.stderr).toMatch(/stopping: finishing \d+ requests in flight/);
    expect(result.stderr).toMatch(/continue with:\n.*--resume/);
  });

  it('a null chunk makes its own row error and the run goes on', async () => {
    const result = await run(
      (request) => {
        const chunks = (JSON.parse(request.body) as unknown[]).map((_, i) => (i === 0 ? null : chunkFor(['property/value'])));
        return { status: 200, body: JSON.stringify(chunks), headers: RATE };
      },
      ['-q'],
      10,
    );
    expect(result.code).toBe(3);
    expect(result.records.map((record) => record._status)).toEqual(['error', 'ok', 'ok', 'ok', 'ok', 'error', 'ok', 'ok', 'ok', 'ok']);
  });
});

describe('paths a run writes', () => {
  it('a --report that cannot be written is one line naming it, after the summary, not an unexpected error', async () => {
    const result = await run((request) => ok(request.body), ['--report', '/dev/full'], 10);
    expect(result.code).toBe(1);
    expect(result.records).toHaveLength(10);
    expect(result.stderr).toMatch(/^propdata: completed: .* holds 10 ok/m);
    expect(result.stderr).toMatch(
      /\npropdata: cannot write --report \/dev\/full: the disk is full; the records are written, only the report is not\n$/,
    );
    expect(result.stderr).not.toMatch(/unexpected/);
  });

  it('refuses an output that is the input, by name or through a symlink, before sending anything', async () => {
    let requests = 0;
    server = await startScriptedServer((request) => {
      requests += 1;
      return ok(request.body);
    });
    const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's3cret' };
    const { dir, path } = input();
    const before = readFileSync(path, 'utf8');
    const link = join(dir, 'link.csv');
    symlinkSync(path, link);
    for (const output of [path, link]) {
      const result = await runMain(['property', 'value', '-i', path, '-o', output], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/is the input file: writing it would destroy the input/);
    }
    const report = await runMain(['property', 'value', '-i', path, '-o', join(dir, 'o.csv'), '--report', join(dir, 'o.csv')], { env });
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/--report .* is the output file/);
    const missing = await runMain(['property', 'value', '-i', path, '-o', join(dir, 'o.csv'), '--report', join(dir, 'no', 'r.json')], {
      env,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/its directory .* does not exist/);
    const directory = await runMain(['property', 'value', '-i', path, '-o', join(dir, 'o.csv'), '--report', dir], { env });
    expect(directory.stderr).toMatch(/it is a directory/);
    expect(requests).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });
});
