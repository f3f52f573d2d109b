import type { Status } from '../model/status.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';
import type { RunStats } from './run-stats.js';

export interface RunSummary {
  /** The whole output's records by status: this run's, and an appended output's earlier ones (--resume). */
  records: Record<Status, number>;
  /** The records this run wrote, when the output holds earlier ones too. */
  recordsThisRun?: Record<Status, number>;
  /** Where the records went: the output file, or stdout. */
  output?: string;
  rowsRead: number;
  requests: number;
  componentsUsed: number;
  /** Components not spent because identical items were sent once. */
  componentsSaved: number;
  /** Rows written wholly from the store (a repeat of one too: the store answered it again), and the list price of the billable sections it answered. */
  fromStore: number;
  savedByStore: number;
  /** Items the store answered in part (the sections they lacked were bought). */
  partlyFromStore: number;
  retries: number;
  /** Retried requests whose failed attempt may have been served (sent whole then lost, or answered unreadably): the service may have charged them too. */
  retriedPossiblyCharged: number;
  /** Rows written as `not_sent` because the run stopped before sending them (--no-store); a rerun sends them. */
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
  /** Whether the rows from nextRow on that were answered are in the store (a rerun takes them free). */
  restInStore?: boolean;
  /**
   * A library batch its caller stopped: the records answered and bought that were not handed over
   * (in flight at the stop, or answered and not yet taken). With a store they are kept there; without
   * one (`store: false`) they are paid for and gone. Absent when there were none.
   */
  paidNotHandedOver?: PaidRecords;
}

/** Records and what was bought for them: components, and USD at list price for sections answered with data. */
export interface PaidRecords {
  records: number;
  components: number;
  costUsd: number;
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
    partlyFromStore: stats.partlyFromStore,
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

/**
 * `12,345` as `toLocaleString('en-US')` writes a whole number: the first toLocaleString of a
 * process sets up ICU's number formatting, 20 to 60 ms at the end of every batch.
 */
function grouped(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** `1 request`, `2 requests`. */
const count = (n: number, noun: string, plural = `${noun}s`) => `${grouped(n)} ${n === 1 ? noun : plural}`;

/** `1,463 ok, 37 no_content`. */
function describeRecords(records: Record<Status, number>): string {
  return (
    Object.entries(records)
      .filter(([, n]) => n > 0)
      .map(([status, n]) => `${grouped(n)} ${status}`)
      .join(', ') || 'no records'
  );
}

/** The summary as a few lines for stderr: the output as it now stands, then what this run did. */
export function formatSummary(summary: RunSummary): string {
  const holds =
    summary.output === undefined ? describeRecords(summary.records) : `${summary.output} holds ${describeRecords(summary.records)}`;
  const refused = summary.rateLimitWaits > 0 ? `, ${count(summary.rateLimitWaits, 'request')} refused with 429 and sent again` : '';
  const limits = summary.rateLimitsStated
    ? `the service's limits ${summary.rateLimits}`
    : `paced at --rate ${summary.rateLimits} (the service stated no limits)`;
  const lines = [
    `propdata: ${summary.outcome}: ${holds}`,
    ...(summary.recordsThisRun ? [`  this run wrote ${describeRecords(summary.recordsThisRun)}`] : []),
    `  ${count(summary.requests, 'request')}, ${count(summary.componentsUsed, 'component')} (${summary.componentsSaved} saved by deduplication), ${count(summary.retries, 'retry', 'retries')}`,
    `  rate limit: ${summary.rateLimitWaitSeconds} s waited${refused}; ${limits}`,
    `  cost: ${summary.costUsd.toFixed(2)} USD at list price (sections answered with data; 204s are not charged)`,
    `  ${summary.elapsedSeconds} s, ${grouped(summary.itemsPerMinute)} items/min`,
  ];
  if (summary.stoppedBecause) lines.push(`  stopped: ${summary.stoppedBecause}`);
  if (summary.fromStore > 0 || summary.partlyFromStore > 0) {
    const partly = summary.partlyFromStore > 0 ? ` and ${count(summary.partlyFromStore, 'item')} in part` : '';
    lines.push(
      `  the store answered ${count(summary.fromStore, 'row')} whole${partly}: ${summary.savedByStore.toFixed(2)} USD at list price not bought again`,
    );
  }
  if (summary.retriedPossiblyCharged > 0) {
    lines.push(
      `  ${summary.retriedPossiblyCharged} retried requests had timed out or lost their connection after being sent, or had an unreadable answer: the service may have charged them twice`,
    );
  }
  if (summary.notSent > 0)
    lines.push(`  ${count(summary.notSent, 'row')} not sent before the stop (written as not_sent; a rerun sends them)`);
  if (summary.nextRow !== undefined) {
    lines.push(
      summary.restInStore
        ? `  rows from ${summary.nextRow} on are not in the output yet: what was answered of them is kept in the store, and a rerun writes it without buying it again`
        : `  rows from ${summary.nextRow} on were not processed`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The one line `--quiet` leaves of a run that completed: an unattended night's log still says what
 * the output holds, what was bought and at what cost, and what the store answered instead.
 */
export function formatQuietSummary(summary: RunSummary): string {
  const holds =
    summary.output === undefined ? describeRecords(summary.records) : `${summary.output} holds ${describeRecords(summary.records)}`;
  const partly = summary.partlyFromStore > 0 ? ` and ${count(summary.partlyFromStore, 'item')} in part` : '';
  const store =
    summary.fromStore > 0 || summary.partlyFromStore > 0
      ? `the store answered ${count(summary.fromStore, 'row')} whole${partly} (${summary.savedByStore.toFixed(2)} USD not bought again)`
      : 'nothing from the store';
  return `propdata: ${summary.outcome}: ${holds}; bought ${summary.costUsd.toFixed(2)} USD at list price (${count(summary.componentsUsed, 'component')}); ${store}\n`;
}
