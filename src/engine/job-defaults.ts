import { MAX_ITEMS_PER_REQUEST } from '../catalog/request-limits.js';
import { DEFAULT_MAX_WAIT_MS, DEFAULT_RETRY_POLICY, STORE_WAITS } from '../policy/policy.js';
import { DEFAULT_TIMEOUTS } from '../policy/policy.js';
import { DEFAULT_THROTTLE_POLICY } from '../policy/policy.js';

/**
 * How a job sends when its caller does not say: the CLI's flags and the library's options both
 * take their defaults from here (and the modules named), so `--batch-size` and `batchSize` cannot
 * drift apart.
 */
export const JOB_DEFAULTS = {
  /** Items per POST: the service's own maximum. */
  batchSize: MAX_ITEMS_PER_REQUEST,
  /** Requests in flight at once. */
  concurrency: 4,
  /** Components a minute until the service states its windows in its headers. */
  ratePerMinute: DEFAULT_THROTTLE_POLICY.initialPerMinute,
  /** Identical items in one run are sent once. */
  dedupe: true,
  /** Retries of a request after a 5xx, a timeout or a dropped connection. */
  maxRetries: DEFAULT_RETRY_POLICY.maxRetries,
  /** The longest wait for a rate window to reset before a batch stops (QuotaWaitError). */
  maxWaitMs: DEFAULT_MAX_WAIT_MS.batch,
  /** The deadline of a whole response, body included. */
  timeoutMs: DEFAULT_TIMEOUTS.responseMs,
  /** How long a batch waits for a store that stopped answering before it stops (the policy's reason). */
  storeWaitMs: STORE_WAITS.outageWaitMs,
} as const;
