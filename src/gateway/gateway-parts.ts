import type { Reply } from '../wire/replies.js';
import type { Store } from '../store/store-api.js';
import type { Clock } from '../throttle/clock.js';
import type { Activity } from './activity.js';
import type { KeyRing } from './key-ring.js';
import type { LoginThrottle, LoginThrottlePolicy } from './login-throttle.js';
import type { Logins } from './logins.js';
import type { SpendBook } from './spend-book.js';
import type { Upstream } from './upstream.js';

/** A request as the gateway's log has it: never a credential, never an item or a query string. */
export interface GatewayRequestLog {
  at: number;
  /** The key's name, once known. */
  key?: string;
  method: string;
  path: string;
  status: number;
  /** Items asked, and how many came from the store. */
  items?: number;
  fromStore?: number;
  elapsedMs: number;
}

export interface GatewaySettings {
  host: string;
  port: number;
  /** PEM certificate chain and private key: the gateway speaks HTTPS. Without: plain HTTP. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** The status page's password (user `admin`). */
  adminKey: string;
  /** Open for the gateway's life; the caller closes it. */
  store: Store;
  upstream: Upstream;
  /** Whose answers and spend (store/account.ts). */
  account: string;
  /** An answer younger than this comes from the store, unless a request says otherwise (X-Propdata-Max-Age). */
  maxAgeMs: number | undefined;
  /** The longest a request waits for the rate limit; a request may ask for less (X-Propdata-Max-Wait). */
  maxWaitMs: number;
  /** The account's budget this UTC month, USD at list price (--max-cost-month). */
  maxCostMonth: number | undefined;
  clock: Clock;
  onRequest?(entry: GatewayRequestLog): void;
  /** A failure the gateway answered 500 for, or met in the background (a refresh): its message only. */
  onProblem?(message: string): void;
  /** How often keys and every gateway's spend are read again from the store. */
  refreshMs?: number;
  loginThrottle?: LoginThrottlePolicy;
}

/** The gateway's parts, as its routes use them. */
export interface GatewayParts {
  settings: GatewaySettings;
  logins: Logins;
  ring: KeyRing;
  throttle: LoginThrottle;
  activity: Activity;
  book: SpendBook;
  /** Aborted when the gateway stops: a call still waiting is answered 503 at once. */
  stopping: AbortSignal;
  startedAt: number;
}

/** A request answered: the reply, and what the log and the status page note of it. */
export interface Handled {
  reply: Reply;
  key?: string;
  items?: number;
  fromStore?: number;
  /** Why it counts as a refusal when its status alone does not say (a failed login). */
  refusal?: string;
}
