import { GATEWAY_WAITS } from '../policy/policy.js';
/**
 * How a gateway runs when `propdata serve` is not told otherwise: every default in one place, with
 * its reason; the command's flags and the reference's table take them from here.
 */
export const GATEWAY_DEFAULTS = {
  /** Nothing else of propdata's listens on it; above 1023, so no privilege is needed. */
  port: 8710,
  /** This machine only: another address needs TLS, or to be told the traffic is plain. */
  host: '127.0.0.1',
  /** A month's answers are the store's to give: a property's value is modelled monthly (spec). */
  maxAgeMs: 30 * 86_400_000,
  /** The longest a client's request waits for its turn at the account's windows (the policy's reason). */
  maxWaitMs: GATEWAY_WAITS.maxWaitMs,
  /** Requests to the service in flight at once: the pacer, not the connections, sets the pace. */
  concurrency: 16,
} as const;
