import type { Reply } from '../wire/replies.js';
import type { Store } from '../store/store-api.js';
import type { Clock } from '../throttle/clock.js';
import type { IncomingMessage } from 'node:http';
import type { Activity } from './activity.js';
import type { KeyRates } from './key-rates.js';
import type { KeyRing } from './key-ring.js';
import type { LoginThrottle, LoginThrottlePolicy } from './login-throttle.js';
import type { Logins } from './logins.js';
import type { GatewayMetrics, MetricsNow } from './metrics.js';
import type { SpendBook } from './spend-book.js';
import type { Upstream } from './upstream.js';

/** A request as the gateway's log has it: never a credential, never an item or a query string. */
export interface GatewayRequestLog {
  at: number;
  /** The key's name, once known. */
  key?: string;
  /** The client's address: the socket's, or the one a trusted proxy forwarded (--trust-proxy). */
  address: string;
  method: string;
  path: string;
  status: number;
  /** Items asked, and how many came from the store. */
  items?: number;
  fromStore?: number;
  elapsedMs: number;
  /** Why a request was cut before it could be answered (its body too slow, the client gone). */
  cut?: string;
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
  /** A failure the gateway answered 500 for, or met in the background (a refresh, its store stopping and answering again): its message only. */
  onProblem?(message: string): void;
  /** How often keys and every gateway's spend are read again from the store. */
  refreshMs?: number;
  loginThrottle?: LoginThrottlePolicy;
  /** The proxies whose X-Forwarded-For is believed (--trust-proxy): IP addresses. */
  trustProxy?: readonly string[];
  /** How long a client has for its headers, and for its whole request (GATEWAY_WAITS' unless told). */
  requestTimeouts?: { headersMs: number; requestMs: number };
  /** Connections open at once (GATEWAY_DOOR.maxConnections unless told). */
  maxConnections?: number;
  /** Resolves when the service's address accepts a connection (/readyz); absent: not asked. */
  probeService?(): Promise<void>;
}

/** The gateway's parts, as its routes use them. */
export interface GatewayParts {
  settings: GatewaySettings;
  logins: Logins;
  ring: KeyRing;
  throttle: LoginThrottle;
  activity: Activity;
  book: SpendBook;
  metrics: GatewayMetrics;
  /** What a scrape reads now (metrics.ts). */
  metricsNow(): MetricsNow;
  /** Who sent a request, as the throttle, the log and the status page name it. */
  addressOf(request: IncomingMessage): string;
  /** Each key's share of the account's rate, on this gateway. */
  rates: KeyRates;
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
  /** Why it was cut before it could be answered: no refusal of the gateway's, but the log says it. */
  cut?: string;
}
