import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { plainLine, progressLine, RecentRate, startProgress, type ProgressView } from '../../src/cli/progress.js';
import { countInputRows, openInput } from '../../src/input/open-input.js';
import { estimatedRows, readProgress, rowsAreExact } from '../../src/input/read-progress.js';
import { RunStats } from '../../src/pipeline/run-stats.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/policy/policy.js';
import { RateLimiter } from '../../src/throttle/rate-limiter.js';
import type { Io } from '../../src/cli/io.js';
import { FakeClock } from '../helpers/fake-clock.js';

const busy: ProgressView = {
  done: 1_310,
  total: 3_220,
  totalExact: false,
  rowsPerMinute: 82,
  pace: { used: 248, limit: 250, periodMs: 60_000 },
  etaMinutes: 7.7,
  waitSeconds: 35,
};

describe('the progress line', () => {
  it('shows a real ETA, never the text INF of a clashing token', () => {
    const line = progressLine({ done: 1_310, total: 3_220, totalExact: true, rowsPerMinute: 172, etaMinutes: 11.1 }, 120);
    expect(line).toMatch(/ 40% \| 1,310\/3,220 rows \| 172\/min \| ETA 12 min$/);
    expect(line).not.toContain('INF');
  });

  it('fits in 80 columns whatever it holds: the percentage, the rate and the window go first', () => {
    for (const columns of [80, 60, 40]) {
      const line = progressLine(busy, columns);
      expect(line.length, line).toBeLessThan(columns);
      expect(line).toContain('1,310/~3,220 rows');
    }
    expect(progressLine(busy, 80)).toContain('waiting 35 s for the limit');
  });

  it("shows the service's window as it stands, and no bar without a total", () => {
    expect(progressLine(busy, 200)).toContain('82/min | 248/250 comp/60s');
    expect(progressLine({ done: 12 }, 80)).toBe('12 rows');
    expect(plainLine({ done: 12, total: 100, totalExact: true, rowsPerMinute: 6 })).toBe('propdata: 12/100 rows (12%), 6/min\n');
  });

  it('keeps one bar width whatever the text beside it', () => {
    const bars = [busy, { ...busy, waitSeconds: undefined }, { done: 5, total: 3_220, totalExact: true }, { ...busy, done: 3_000 }].map(
      (view) => /^[\u2588\u2591]+ /.exec(progressLine(view, 100))![0].length,
    );
    expect(new Set(bars)).toEqual(new Set([bars[0]]));
  });

  it('shows an ETA under ten minutes in minutes and seconds', () => {
    expect(progressLine(busy, 200)).toContain('ETA 7:42');
    expect(progressLine({ ...busy, etaMinutes: 0.25 }, 200)).toContain('ETA 0:15');
    expect(progressLine({ ...busy, etaMinutes: 11.1 }, 200)).toContain('ETA 12 min');
  });
});

describe("the window's pace", () => {
  it('is the count the service states of the window that sets the pace, never over its limit', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, clock);
    const first = await limiter.acquire(10);
    // The service counted 240 of 250 this minute (other jobs of the account), 10 of 20 this second.
    limiter.observe(first, [
      { periodSeconds: 1, limit: 20, remaining: 10, resetAt: clock.now() + 1_000 },
      { periodSeconds: 60, limit: 250, remaining: 10, resetAt: clock.now() + 60_000 },
    ]);
    expect(limiter.pace).toEqual({ used: 240, limit: 250, periodMs: 60_000 });
    // A new window: nothing of it used yet.
    await clock.sleep(61_000);
    expect(limiter.pace).toEqual({ used: 0, limit: 250, periodMs: 60_000 });
  });
});

describe('an exact row total', () => {
  const FILE = fileURLToPath(new URL('../fixtures/input/district-offices.csv', import.meta.url));

  it("is counted ahead of the run's reader, as the reader counts rows", async () => {
    const ahead = await openInput({ path: FILE, stdin: new PassThrough() });
    const progress = ahead.progress!;
    expect(estimatedRows(progress)).toBeUndefined();
    await countInputRows(progress, new AbortController().signal);
    expect(rowsAreExact(progress)).toBe(true);
    let rows = 0;
    for await (const _row of (await openInput({ path: FILE, stdin: new PassThrough() })).rows) rows += 1;
    expect(rows).toBe(300);
    expect(estimatedRows(progress)).toBe(rows);
  });
});

describe('RecentRate', () => {
  it('counts rows over the last minute, not since the start', () => {
    const rate = new RecentRate();
    rate.add({ at: 0, rows: 0, components: 0 });
    expect(rate.rowsPerMinute).toBeUndefined();
    // Five idle minutes (the first batch held back), then 100 rows a minute.
    for (let minute = 1; minute <= 5; minute++) rate.add({ at: minute * 60_000, rows: 0, components: 0 });
    for (let minute = 6; minute <= 8; minute++) rate.add({ at: minute * 60_000, rows: (minute - 5) * 100, components: (minute - 5) * 300 });
    expect(rate.rowsPerMinute).toBe(100);
    expect(rate.componentsPerMinute).toBe(300);
    expect(rate.componentsPerRow).toBe(3);
  });
});

describe('startProgress', () => {
  function io(env: Record<string, string | undefined>) {
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    let text = '';
    stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return { io: { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env } as unknown as Io, text: () => text };
  }

  it('starts a resumed run at the rows already done, and draws no escape codes for TERM=dumb', async () => {
    const stats = new RunStats();
    stats.input = { ...readProgress(1_000), bytesRead: 400, rowsRead: 40 };
    stats.rowsRead = 10; // 30 rows read and skipped: an earlier run wrote them
    const terminal = io({ TERM: 'xterm' });
    (await startProgress(terminal.io, stats, new RateLimiter(), false)).stop();
    expect(terminal.text()).toContain('30/~100 rows');

    const dumb = io({ TERM: 'dumb' });
    (await startProgress(dumb.io, stats, new RateLimiter(), false)).stop();
    expect(dumb.text()).not.toContain('\u001b');
  });
});
