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
  rateLimitWaits: number;
  rateLimitWaitSeconds: number;
  rateLimits: string;
  elapsedSeconds: number;
  itemsPerMinute: number;
  outcome: 'completed' | 'completed with failures' | 'interrupted' | 'stopped';
  stoppedBecause?: string;
  /** The first row not in the output, when the run did not finish. */
  nextRow?: number;
}

export function summarize(stats: RunStats, limiter: RateLimiter, outcome: RunSummary['outcome'], extra: Partial<RunSummary> = {}): RunSummary {
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
    elapsedSeconds: Math.round(stats.elapsedMs / 100) / 10,
    itemsPerMinute: Math.round(stats.itemsPerMinute),
    outcome,
    ...extra,
  };
}

/** The summary as a few lines for stderr. */
export function formatSummary(summary: RunSummary): string {
  const records = Object.entries(summary.records)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  const lines = [
    `propdata: ${summary.outcome}: ${records || 'no records'}`,
    `  ${summary.requests} requests, ${summary.componentsUsed} components (${summary.componentsSaved} saved by deduplication), ${summary.retries} retries, ` +
      `${summary.rateLimitWaits} rate-limit waits (${summary.rateLimitWaitSeconds} s waited; limits ${summary.rateLimits})`,
    `  ${summary.elapsedSeconds} s, ${summary.itemsPerMinute} items/min`,
  ];
  if (summary.stoppedBecause) lines.push(`  stopped: ${summary.stoppedBecause}`);
  if (summary.fromStore > 0) lines.push(`  ${summary.fromStore} rows answered from the local store (${summary.savedByStore.toFixed(2)} USD at list price not spent)`);
  if (summary.retriedPossiblyCharged > 0) {
    lines.push(`  ${summary.retriedPossiblyCharged} retried requests had timed out or lost their connection after being sent: the service may have charged them twice`);
  }
  if (summary.notSent > 0) lines.push(`  ${summary.notSent} rows were not sent before the stop (written as error; --resume sends them)`);
  if (summary.nextRow !== undefined) lines.push(`  rows from ${summary.nextRow} on were not processed`);
  return `${lines.join('\n')}\n`;
}
