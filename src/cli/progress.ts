import { canAnimate, type Io } from './io.js';
import type { RateLimiter, WindowPace } from '../throttle/rate-limiter.js';
import { formatDuration } from '../pipeline/format-duration.js';
import type { RunStats } from '../pipeline/run-stats.js';
import { estimatedRows, rowsAreExact } from '../input/read-progress.js';
import { countInputRows } from '../input/open-input.js';

export interface Progress {
  stop(): void;
}

const PLAIN_EVERY_MS = 10_000;
const TICK_MS = 200;
/** Rates are over the last minute: rows are written in bursts (a batch at a time), and a run's first minutes are no guide to its pace. */
const RATE_WINDOW_MS = 60_000;
/** Nothing is said about a rate until it has been measured over this long. */
const MIN_RATE_SPAN_MS = 5_000;
/** The service sets the pace when we send at least this share of its limit, or wait for it. */
const PACED_SHARE = 0.8;
const MIN_BAR = 10;
const MAX_BAR = 30;
/** The bar's share of the terminal's width, between MIN_BAR and MAX_BAR. */
const BAR_SHARE = 0.2;

interface Sample {
  at: number;
  rows: number;
  components: number;
}

/** Rows and components per minute over a recent window, from samples of the run's counters. */
// Exported for test/cli/progress.test.ts: the rate over a fake clock, which a real run cannot pin.
export class RecentRate {
  readonly #windowMs: number;
  #samples: Sample[] = [];

  constructor(windowMs = RATE_WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  add(sample: Sample): void {
    this.#samples.push(sample);
    // Keep one sample at or before the window's start, so the window is always covered whole.
    while (this.#samples.length > 2 && this.#samples[1]!.at <= sample.at - this.#windowMs) this.#samples.shift();
  }

  #span(): { first: Sample; last: Sample; minutes: number } | undefined {
    const first = this.#samples[0];
    const last = this.#samples[this.#samples.length - 1];
    if (!first || !last || last.at - first.at < MIN_RATE_SPAN_MS) return undefined;
    return { first, last, minutes: (last.at - first.at) / 60_000 };
  }

  get rowsPerMinute(): number | undefined {
    const span = this.#span();
    return span && (span.last.rows - span.first.rows) / span.minutes;
  }

  get componentsPerMinute(): number | undefined {
    const span = this.#span();
    return span && (span.last.components - span.first.components) / span.minutes;
  }

  /** Components per row written over the window (dedupe and the store make it less than an item's). */
  get componentsPerRow(): number | undefined {
    const span = this.#span();
    if (!span || span.last.rows === span.first.rows) return undefined;
    return (span.last.components - span.first.components) / (span.last.rows - span.first.rows);
  }
}

/** What one progress line says. */
export interface ProgressView {
  /** Rows done: written by this run, plus those an earlier run wrote (a resumed run skips them). */
  done: number;
  /** The input's rows: exact once it is read or counted, else estimated from the bytes read; unknown for a pipe. */
  total?: number | undefined;
  totalExact?: boolean;
  rowsPerMinute?: number | undefined;
  /** Under rate limiting (in place of the rate): what is used of the window that sets the pace. */
  pace?: WindowPace | undefined;
  etaMinutes?: number | undefined;
  /** Seconds left of a wait for the rate limit. */
  waitSeconds?: number | undefined;
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** An ETA: `7:05` under ten minutes (a minute's rounding would be most of it), else as the summary says spans. */
function etaText(minutes: number): string {
  if (minutes >= 10) return formatDuration(minutes);
  const seconds = Math.ceil(minutes * 60);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The window as the summary names it (`250/60s`), with what is used of it: `180/250 comp/60s`. */
const paceText = (pace: WindowPace) => `${count(pace.used)}/${count(pace.limit)} comp/${pace.periodMs / 1000}s`;

function parts(view: ProgressView): { percent?: string; rows: string; rate?: string; pace?: string; eta?: string; wait?: string } {
  const total = view.total === undefined ? '' : `/${view.totalExact ? '' : '~'}${count(view.total)}`;
  return {
    ...(view.total ? { percent: `${Math.min(100, Math.floor((view.done * 100) / view.total))}%` } : {}),
    rows: `${count(view.done)}${total} rows`,
    ...(view.rowsPerMinute !== undefined ? { rate: `${count(view.rowsPerMinute)}/min` } : {}),
    ...(view.pace ? { pace: paceText(view.pace) } : {}),
    ...(view.etaMinutes !== undefined ? { eta: `ETA ${etaText(view.etaMinutes)}` } : {}),
    ...(view.waitSeconds !== undefined ? { wait: `waiting ${view.waitSeconds} s for the limit` } : {}),
  };
}

function bar(width: number, fraction: number): string {
  const full = Math.round(width * Math.max(0, Math.min(1, fraction)));
  return '\u2588'.repeat(full) + '\u2591'.repeat(width - full);
}

/** The bar's width: a share of the terminal's, never of the text beside it, so the bar does not jump as the text changes. */
const barWidth = (columns: number) => Math.max(MIN_BAR, Math.min(MAX_BAR, Math.floor(columns * BAR_SHARE)));

/**
 * The bar's line, never wider than `columns - 1` (a terminal wraps a line that fills its last
 * column): the least needed parts go first (the percentage, which the bar and the rows show,
 * then the rate, the window's pace, the ETA), and the bar only when even the rows do not fit beside it.
 */
// Exported for test/cli/progress.test.ts: the line at set widths and rates, which a run's terminal cannot pin.
export function progressLine(view: ProgressView, columns: number): string {
  const { percent, rows, rate, pace, eta, wait } = parts(view);
  const room = Math.max(1, columns - 1);
  const candidates = [
    [percent, rows, rate, pace, eta, wait],
    [rows, rate, pace, eta, wait],
    [rows, pace, eta, wait],
    [rows, eta, wait],
    [rows, wait],
    [rows],
  ];
  const texts = candidates.map((candidate) => candidate.filter((part) => part !== undefined).join(' | '));
  if (view.total) {
    const width = barWidth(columns);
    const beside = texts.find((text) => width + 1 + text.length <= room);
    if (beside !== undefined) return `${bar(width, view.done / view.total)} ${beside}`;
  }
  return (texts.find((text) => text.length <= room) ?? rows).slice(0, room);
}

/** The plain line written every few seconds when stderr is a log, not a terminal. */
// Exported for test/cli/progress.test.ts: the line at set rates, which a run's output cannot pin.
export function plainLine(view: ProgressView): string {
  const { percent, rows, rate, pace, eta, wait } = parts(view);
  return `propdata: ${[percent ? `${rows} (${percent})` : rows, rate, pace, eta, wait].filter((part) => part !== undefined).join(', ')}\n`;
}

/** A terminal that takes a redrawn line: not a log, and not TERM=dumb (no cursor movement, no colours). */
function canRedraw(io: Io): boolean {
  return canAnimate(io.stderr) && io.env.TERM !== 'dumb';
}

/**
 * Progress on stderr, never stdout: a bar on a terminal, a plain line every few seconds in a log,
 * nothing with --quiet. It samples the run's counters on a timer, off the per-row path. The total
 * comes from the bytes the reader has got through (stats.input), until a second reader has
 * counted a regular file's rows (countInputRows): from then on it is exact.
 */
export async function startProgress(io: Io, stats: RunStats, limiter: RateLimiter, quiet: boolean): Promise<Progress> {
  if (quiet) return { stop: () => undefined };
  const clock = io.clock ?? { now: () => Date.now() };
  const counting = new AbortController();
  if (stats.input) void countInputRows(stats.input, counting.signal);
  const recent = new RecentRate();
  const view = (): ProgressView => {
    const now = clock.now();
    const written = stats.recordsWritten;
    recent.add({ at: now, rows: written, components: stats.componentsUsed });
    const input = stats.input;
    // Rows read and skipped because an earlier run wrote them (--resume): done already.
    const skipped = input ? Math.max(0, input.rowsRead - stats.rowsRead) : 0;
    const done = written + skipped;
    const total = input ? estimatedRows(input) : undefined;
    const rowsPerMinute = recent.rowsPerMinute;
    const pace = limiter.stated ? limiter.pace : undefined;
    const limit = pace && (pace.limit * 60_000) / pace.periodMs;
    const componentsPerMinute = recent.componentsPerMinute;
    const until = limiter.waitingUntil;
    const paced = limit !== undefined && componentsPerMinute !== undefined && (until > 0 || componentsPerMinute >= limit * PACED_SHARE);
    const left = total === undefined ? undefined : Math.max(0, total - done);
    const perRow = recent.componentsPerRow;
    // Under rate limiting the service's windows set the pace: the rows left take their components at its limit.
    const rowsPace = paced && perRow ? limit / perRow : rowsPerMinute;
    return {
      done,
      total,
      totalExact: input ? rowsAreExact(input) : false,
      // Paced, rows come in a burst a window: a rate measured over a span a burst falls into would
      // read over the limit. The window as the service counts it is the truth then.
      ...(paced ? { pace } : { rowsPerMinute }),
      etaMinutes: left !== undefined && left > 0 && rowsPace ? left / rowsPace : undefined,
      waitSeconds: until > 0 ? Math.ceil((until - now) / 1000) : undefined,
    };
  };

  if (!canRedraw(io)) {
    const timer = setInterval(() => io.stderr.write(plainLine(view())), PLAIN_EVERY_MS);
    timer.unref();
    return {
      stop: () => {
        clearInterval(timer);
        counting.abort();
      },
    };
  }
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar({
    stream: io.stderr,
    // The whole line is ours: cli-progress's own tokens ({eta}, {value}...) never mix with it.
    format: (_options, _params, payload: { line?: string }) => payload.line ?? '',
    hideCursor: true,
    clearOnComplete: false,
  });
  const columns = () => io.stderr.columns ?? 80;
  const render = () => {
    const current = view();
    bar.update(current.done, { line: progressLine(current, columns()) });
  };
  const first = view();
  bar.start(first.total ?? 0, first.done, { line: progressLine(first, columns()) });
  const timer = setInterval(render, TICK_MS);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      counting.abort();
      render();
      bar.stop();
    },
  };
}
