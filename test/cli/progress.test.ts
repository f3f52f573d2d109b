import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { limitPerMinute, plainLine, progressLine, RecentRate, startProgress, type ProgressView } from '../../src/cli/progress.js';
import { readProgress } from '../../src/input/read-progress.js';
import { RunStats } from '../../src/pipeline/run-stats.js';
import { RateLimiter } from '../../src/throttle/rate-limiter.js';
import type { Io } from '../../src/cli/io.js';

const busy: ProgressView = {
  done: 1_310,
  total: 3_220,
  totalExact: false,
  pace: { componentsPerMinute: 248, limitPerMinute: 250 },
  etaMinutes: 7.7,
  waitSeconds: 35,
};

describe('the progress line', () => {
  it('shows a real ETA, never the text INF of a clashing token', () => {
    const line = progressLine({ done: 1_310, total: 3_220, totalExact: true, rowsPerMinute: 172, etaMinutes: 11.1 }, 120);
    expect(line).toMatch(/ 40% \| 1,310\/3,220 rows \| 172\/min \| ETA 12 min$/);
    expect(line).not.toContain('INF');
  });

  it('fits in 80 columns whatever it holds: the bar shrinks first, then the rate', () => {
    for (const columns of [80, 60, 40]) {
      const line = progressLine(busy, columns);
      expect(line.length, line).toBeLessThan(columns);
      expect(line).toContain('1,310/~3,220 rows');
    }
    expect(progressLine(busy, 80)).toContain('waiting 35 s for the rate limit');
  });

  it("shows the service's pace under rate limiting, and no bar without a total", () => {
    expect(progressLine(busy, 200)).toContain('248/250 comp/min');
    expect(progressLine({ done: 12 }, 80)).toBe('12 rows');
    expect(plainLine({ done: 12, total: 100, totalExact: true, rowsPerMinute: 6 })).toBe('propdata: 12/100 rows (12%), 6/min\n');
  });

  it('reads the tightest window per minute', () => {
    expect(limitPerMinute('250/60s')).toBe(250);
    expect(limitPerMinute('1000/60s, 2/1s')).toBe(120);
    expect(limitPerMinute('')).toBeUndefined();
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
