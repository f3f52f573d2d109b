import { JOB_DEFAULTS } from '../engine/job-defaults.js';
import type { Logger } from './library-log.js';
import type { RunEvent } from './run-events.js';

/**
 * What a client is created with. Every member is optional; its default is in its comment and,
 * for the numbers, in CLIENT_DEFAULTS below (the CLI's flags share them: engine/job-defaults.ts).
 */
export interface ClientOptions {
  /** API key. Default: as the CLI finds it: PROPDATA_API_KEY (or HC_API_KEY) in `env`, else the stored config (`propdata config set key`). */
  key?: string;
  /** API secret. Default: PROPDATA_API_SECRET (or HC_API_SECRET) in `env`, else the stored config. */
  secret?: string;
  /** The service's base address. Default: PROPDATA_BASE_URL, else the stored config, else the service's own. */
  baseUrl?: string;
  /**
   * Where paid answers, spend and the rate windows are kept: a SQLite file, a `postgres://` URL
   * (one store for several machines), or `false` for none (nothing reused, nothing remembered).
   * Default: the CLI's store: PROPDATA_STORE, else `propdata config set store`, else
   * `$PROPDATA_HOME/propdata.db`.
   */
  store?: string | false;
  /**
   * With a `postgres://` store: the connections the client keeps to the database, shared by all its
   * calls at once (the client holds them from its first call to close()). Default 6.
   */
  storeConnections?: number;
  /** Reuse a kept answer younger than this many milliseconds instead of buying it again. Default: none (age alone never makes an answer reusable). */
  maxAge?: number;
  /** How long, in milliseconds, a batch waits for a store that stopped answering before it stops (sending pauses meanwhile). Default 300,000: 5 minutes (`CLIENT_DEFAULTS.storeWait`). */
  storeWait?: number;
  /** Retries of a request after a 5xx, a timeout or a dropped connection. Default 5 (`CLIENT_DEFAULTS.maxRetries`). */
  maxRetries?: number;
  /** The longest wait, in milliseconds, for a rate window to reset; beyond it a call stops with a QuotaWaitError. Default 900,000: 15 minutes (`CLIENT_DEFAULTS.maxWait`). */
  maxWait?: number;
  /** The deadline of each request's whole response, in milliseconds, body included; a request past it is retried as a dropped one. Default 60,000 (`CLIENT_DEFAULTS.timeout`). */
  timeout?: number;
  /** Stop a batch before it would use more components than this. Default: no cap. */
  maxComponents?: number;
  /** Stop a batch before it would cost more than this many USD at list price. Default: no cap. */
  maxCost?: number;
  /** Stop before the account's cost this UTC month, at list price, would pass this many USD (needs a store). Default: no cap. */
  maxCostMonth?: number;
  /** List price overrides, USD per component by endpoint name (`{ 'property/value': 0.05 }`), for the caps and the costs reported. Default: the catalog's. */
  prices?: Readonly<Record<string, number>>;
  /** Items per POST, 1 to 100. Default 100. */
  batchSize?: number;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Components a minute until the service states its windows. Default 250 (the self-serve plan's). */
  rate?: number;
  /** Send identical items of one batch once. Default true. */
  dedupe?: boolean;
  /** Where notes go (`console` will do). Default: nowhere. Credentials never appear in them. */
  logger?: Logger;
  /** Aborting it stops every call of this client: nothing new is sent; what is in flight is answered and kept. Default: none. */
  signal?: AbortSignal;
  /** Hears what every batch does (responses and their cost, retries, rate-limit waits, the end). Default: none. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Whether requests go through the forward proxy that HTTPS_PROXY (an https service) or
   * HTTP_PROXY in `env` names, but to hosts NO_PROXY lists. `false`: straight to the service,
   * whatever the environment says. Default true.
   */
  proxy?: boolean;
  /** The environment credentials, proxies and the store are looked up in. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The run's name in the store's spend log (`propdata usage --by run`). Default: `library <script>`. */
  label?: string;
}

/**
 * Per call: what may differ from the client's options for one item or one batch. Each default is
 * the client's option of that name, whose own default is in ClientOptions (and CLIENT_DEFAULTS).
 */
export interface CallOptions {
  /** As ClientOptions.timeout, for this call's requests: ms for each whole response. Default: the client's (60,000). */
  timeout?: number;
  /** As ClientOptions.maxRetries, for this call's requests. Default: the client's (5). */
  maxRetries?: number;
  /** As ClientOptions.maxWait, for this call: ms it may wait for a rate window. Default: the client's (15 minutes). */
  maxWait?: number;
  /**
   * Stops this call alone, as ClientOptions.signal stops them all. A one-item call rejects at the
   * abort with a CallAbortedError (`cause`: the signal's reason), and an answer in flight, paid
   * for, is still kept in the store when it arrives; a batch's loop throws the reason once what
   * was in flight is kept. Default: none.
   */
  signal?: AbortSignal;
  /** As ClientOptions.maxAge, for this call: ms. Default: the client's (none). */
  maxAge?: number;
}

/** Per batch. */
export interface BatchOptions extends CallOptions {
  /**
   * Items are rows with other column names: `{ street: 'address', zip: 'zipcode' }` reads each
   * item's `street` as its address. Default: the catalog's names (`address`, `zipcode`, `block_id`...).
   */
  columns?: Readonly<Record<string, string>>;
  /** Parameters sent with every item (`{ add_beds: 1 }`); an item's own member of that name wins. Default: none. */
  params?: Readonly<Record<string, string | number>>;
  /**
   * Names the job this batch belongs to. A batch of the same job run after a stop reuses what the
   * stopped one bought whatever maxAge says, as the CLI's rerun does. Default: none (each batch a job of its own).
   */
  job?: string;
  /** As ClientOptions.maxComponents, for this batch. */
  maxComponents?: number;
  /** As ClientOptions.maxCost, for this batch. */
  maxCost?: number;
  /** As ClientOptions.onEvent, for this batch. */
  onEvent?: (event: RunEvent) => void;
}

/** The numbers a client uses when its options leave them out: the CLI's own defaults. */
export const CLIENT_DEFAULTS = {
  maxRetries: JOB_DEFAULTS.maxRetries,
  maxWait: JOB_DEFAULTS.maxWaitMs,
  timeout: JOB_DEFAULTS.timeoutMs,
  batchSize: JOB_DEFAULTS.batchSize,
  concurrency: JOB_DEFAULTS.concurrency,
  rate: JOB_DEFAULTS.ratePerMinute,
  dedupe: JOB_DEFAULTS.dedupe,
  storeWait: JOB_DEFAULTS.storeWaitMs,
} as const;
