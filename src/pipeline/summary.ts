import type { Status } from '../model/status.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';
import type { RunStats } from './run-stats.js';

export interface RunSummary {
  records: Record<Status, number>;
  rowsRead: number;
  requests: number;
  componentsUsed: number;
  /** Components not spent because identical items were sent once. */
  componentsSaved: number;
  /** Rows answered from the local store (--max-age), and the list price they did not cost. */
  fromStore: number;
  savedByStore: number;
  retries: number;
  /** Retried requests whose failed attempt had been sent whole (a timeout, a dropped connection): the service may have charged them too. */
  retriedPossiblyCharged: number;
  /** Rows written as `error` because the run stopped before sending them; --resume sends them. */
  notSent: number;
  /** Requests the service refused with a 429 (sent again once the window allowed). */
  rateLimitWaits: number;
  /** All the time spent waiting for the rate limit: pacing by the windows, and after any 429. */
  rateLimitWaitSeconds: number;
  rateLimits: string;
  /** Whether `rateLimits` are the service's (stated in its headers) or only --rate's assumption. */
  rateLimitsStated: boolean;
  /** USD at list price of the sections the service answered with data (api_code 0): what the run was billed; 204s are not. */
  costUsd: number;
  elapsedSeconds: number;
  itemsPerMinute: number;
  outcome: 'completed' | 'completed with invalid rows' | 'completed with failures' | 'interrupted' | 'stopped';
  stoppedBecause?: string;
  /** The first row not in the output, when the run did not finish. */
  nextRow?: number;
}

export function summarize(
  stats: RunStats,
  limiter: Pick<RateLimiter, 'waitedMs' | 'describe' | 'stated'>,
  outcome: RunSummary['outcome'],
  extra: Partial<RunSummary> = {},
): RunSummary {
  return {
    records: { ...stats.byStatus },
    rowsRead: stats.rowsRead,
    requests: stats.requests,
    componentsUsed: stats.componentsUsed,
    componentsSaved: 0,
    fromStore: 0,
    savedByStore: 0,
    retries: stats.retries,
    retriedPossiblyCharged: stats.retriedPossiblyCharged,
    notSent: stats.unsentWritten,
    rateLimitWaits: stats.rateLimitWaits,
    rateLimitWaitSeconds: Math.round(limiter.waitedMs / 100) / 10,
    rateLimits: limiter.describe(),
    rateLimitsStated: limiter.stated,
    costUsd: Math.round(stats.costUsd * 100) / 100,
    elapsedSeconds: Math.round(stats.elapsedMs / 100) / 10,
    itemsPerMinute: Math.round(stats.itemsPerMinute),
    outcome,
    ...extra,
  };
}

/**
 * The outcome of a run that went through: `completed with failures` when some rows are `error`
 * (the service or the network failed them); rows refused before sending (`invalid_input`) are the
 * input's own, so they are named as such. Both exit 3.
 */
export function completedOutcome(byStatus: Record<Status, number>): RunSummary['outcome'] {
  if (byStatus.error > 0) return 'completed with failures';
  if (byStatus.invalid_input > 0) return 'completed with invalid rows';
  return 'completed';
}

/** `1 request`, `2 requests`. */
const count = (n: number, noun: string, plural = `${noun}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`;

/** The summary as a few lines for stderr. */
export function formatSummary(summary: RunSummary): string {
  const records = Object.entries(summary.records)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const refused = summary.rateLimitWaits > 0 ? `, ${count(summary.rateLimitWaits, 'request')} refused with 429 and sent again` : '';
  const limits = summary.rateLimitsStated
    ? `the service's limits ${summary.rateLimits}`
    : `paced at --rate ${summary.rateLimits} (the service stated no limits)`;
  const lines = [
    `propdata: ${summary.outcome}: ${records || 'no records'}`,
    `  ${count(summary.requests, 'request')}, ${count(summary.componentsUsed, 'component')} (${summary.componentsSaved} saved by deduplication), ${count(summary.retries, 'retry', 'retries')}`,
    `  rate limit: ${summary.rateLimitWaitSeconds} s waited${refused}; ${limits}`,
    `  cost: ${summary.costUsd.toFixed(2)} USD at list price (sections answered with data; 204s are not charged)`,
    `  ${summary.elapsedSeconds} s, ${summary.itemsPerMinute.toLocaleString('en-US')} items/min`,
  ];
  if (summary.stoppedBecause) lines.push(`  stopped: ${summary.stoppedBecause}`);
  if (summary.fromStore > 0)
    lines.push(
      `  ${summary.fromStore} rows answered from the local store (${summary.savedByStore.toFixed(2)} USD at list price not spent)`,
    );
  if (summary.retriedPossiblyCharged > 0) {
    lines.push(
      `  ${summary.retriedPossiblyCharged} retried requests had timed out or lost their connection after being sent: the service may have charged them twice`,
    );
  }
  if (summary.notSent > 0) lines.push(`  ${summary.notSent} rows were not sent before the stop (written as error; --resume sends them)`);
  if (summary.nextRow !== undefined) lines.push(`  rows from ${summary.nextRow} on were not processed`);
  return `${lines.join('\n')}\n`;
}
