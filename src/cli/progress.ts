import { canAnimate, type Io } from './io.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';
import { formatDuration } from '../pipeline/format-duration.js';
import type { RunStats } from '../pipeline/run-stats.js';

export interface Progress {
  stop(): void;
}

const PLAIN_EVERY_MS = 10_000;

function waitNote(limiter: RateLimiter): string {
  const until = limiter.waitingUntil;
  return until ? `waiting ${Math.ceil((until - Date.now()) / 1000)} s for the rate limit` : '';
}

/**
 * Progress on stderr, never stdout: a bar on a terminal, a plain line every few seconds in a log,
 * nothing with --quiet. It samples the run's counters on a timer, off the per-row path.
 */
export async function startProgress(io: Io, stats: RunStats, limiter: RateLimiter, quiet: boolean): Promise<Progress> {
  if (quiet) return { stop: () => undefined };
  if (!canAnimate(io.stderr)) {
    const timer = setInterval(() => {
      const total = stats.totalRows ? `/${stats.totalRows}` : '';
      const wait = waitNote(limiter);
      io.stderr.write(
        `propdata: ${stats.recordsWritten}${total} rows, ${Math.round(stats.itemsPerMinute)}/min${wait ? `, ${wait}` : ''}\n`,
      );
    }, PLAIN_EVERY_MS);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr,
      format: '{bar} {value}/{total} rows | {rate}/min{eta}{wait}',
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const payload = (wait: string) => ({ rate: Math.round(stats.itemsPerMinute), eta: eta(stats), wait: wait ? ` | ${wait}` : '' });
  bar.start(stats.totalRows ?? 0, 0, payload(''));
  // The row count arrives while the run goes on (a second read of the file).
  const takeTotal = () => {
    if (stats.totalRows && bar.getTotal() !== stats.totalRows) bar.setTotal(stats.totalRows);
  };
  const timer = setInterval(() => {
    takeTotal();
    bar.update(stats.recordsWritten, payload(waitNote(limiter)));
  }, 200);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      takeTotal();
      bar.update(stats.recordsWritten, payload(''));
      bar.stop();
    },
  };
}

/** ` | ETA 12 min` once the total and a rate are known; nothing before (stdin has no total). */
function eta(stats: RunStats): string {
  const left = (stats.totalRows ?? 0) - stats.recordsWritten;
  if (!stats.totalRows || left <= 0 || stats.itemsPerMinute <= 0) return '';
  return ` | ETA ${formatDuration(left / stats.itemsPerMinute)}`;
}
