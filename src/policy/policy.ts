/**
 * Every timing of propdata, in one place, each default with its reason (as ky and undici's
 * RetryHandler keep every option with its default in one place): how it paces the service, how it
 * tries a request again, how long a request may take, how claims and leases last, how long it
 * waits for its store and its output's lock. Nothing numeric about timing lives elsewhere. The
 * relations between the numbers are checked as this module loads (policyProblems): a default that
 * breaks one fails every test and every command at once, not a run in the field.
 */

// --- pacing -------------------------------------------------------------------------------------

/** --max-wait when not given: a person at a prompt waits a minute and a half; an unattended batch, a quarter of an hour. */
export const DEFAULT_MAX_WAIT_MS = { oneOff: 90_000, batch: 15 * 60_000 } as const;

/**
 * How the rate limiter and its pacers pace the service. A run's limiter is given the table with
 * --rate and --max-wait put in; the pacing guide's numbers are these (test/throttle/pacing-guide.test.ts
 * fails when they drift apart).
 */
export interface ThrottlePolicy {
  /** Components per minute assumed until the service's headers describe the real windows (--rate). */
  initialPerMinute: number;
  /** The most the first request may carry, before any answer has described the windows. */
  firstRequestComponents: number;
  /** Slack after each window's reset, as a fraction of the window, at least minMarginMs. */
  marginFraction: number;
  minMarginMs: number;
  /** How long a request may take to reach the service: one sent this long before a reset may count in the next window. */
  transitMs: number;
  /** The longest wait for the rate limit worth sitting through (--max-wait); a longer one stops the run (QuotaWaitError). */
  maxWaitMs: number;
  /** How long after its first answer a job takes no more than its start share of a window... */
  startGraceMs: number;
  /** ...and at most this part of the shortest window. */
  startGracePart: number;
  /** How many clients every job assumes while it shares a window with others it cannot count exactly. */
  assumedClients: number;
  /** With a shared store: how soon a job held back only by the others' shares, or by requests in flight, asks again. */
  recheckMs: number;
  /** With a shared store: how long the others wait for the answer to the one request sent while no job knows the windows. */
  probeWaitMs: number;
  /** With a shared store: how long reservations are kept past the longest window. */
  keepReservationsMs: number;
  /** With a shared store: after this many of the longest windows without asking, a job has stopped. */
  staleAfterPeriods: number;
  /** With a shared store: how many requests of its size a grant may reserve at once (a lease), spent here without asking the store again... */
  leaseRequests: number;
  /** ...when that is at most this part of every window's limit... */
  leasePart: number;
  /** ...and for this long: what is left of a lease then is given back at the next grant. */
  leaseMs: number;
  /** Without a shared store: the first part of each window, taken in start shares at the reset while others are seen. */
  sharedPart: number;
  /** Without a shared store: past the shared part, at most one request per this fraction of the shortest window while others send in it. */
  scrambleRounds: number;
  /** Without a shared store: how far a count may exceed our own sends (a part of the limit, at least 1) before others are seen. */
  othersSlack: number;
  /** Without a shared store: how many of the longest windows other clients, once seen, are assumed to stay. */
  seenForPeriods: number;
}

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = {
  // The self-serve plan (spec, Limits): what most accounts have, and what the first answer corrects.
  initialPerMinute: 250,
  // Small, so that a window tighter than a batch (20 a second against batches of 100) is learnt from
  // a request it admits, not from a 429; and a quota an earlier job spent costs one small refusal.
  firstRequestComponents: 10,
  // Clock skew and transit jitter after a reset: 300 ms of a minute, 50 ms of a second or two. Every
  // ms of margin is a window left unused, so it is small; the service's clock is corrected for apart
  // from it (ServiceClock).
  marginFraction: 0.005,
  minMarginMs: 50,
  // Round trips to the service take well under this: a request reserved this long before a reset
  // counts in both windows until its answer says which one the service counted it in.
  transitMs: 200,
  // An unattended batch sits through a quarter of an hour (the --max-wait default of a batch); a
  // daily quota spent is better a stop that says when to resume than a night of sleeping.
  maxWaitMs: DEFAULT_MAX_WAIT_MS.batch,
  // A crontab starts its jobs a few hundred ms apart: the first one answered would otherwise take
  // the whole first window before the others' first requests arrive. A second is one start in 60
  // at the self-serve plan, and a tenth of a window is one in 10 at a 2 s window (docs/pacing.md, "What
  // the start grace costs"); both cost a job alone one window at most, once.
  startGraceMs: 1_000,
  startGracePart: 0.1,
  // Jobs on other machines cannot count each other, so each assumes the same number whatever it
  // sees: a number measured from its own part of the counts is lowest for the job that took most,
  // and keeps it ahead. Safe for about half as many jobs; more jobs cost 429s, fewer cost a few
  // round trips per window. A start share is a window over assumedClients + 1.
  assumedClients: 16,
  // A share claimed by a job that then wants less (its demand was met, or it finished) goes to the
  // others this soon; waiting for the next window instead, one of 8 jobs left the last 29
  // components of a window of 250 unused, and took a fifth window.
  recheckMs: 200,
  // Eight jobs probing at once would overrun a window of 50; the probe's answer takes a round trip.
  probeWaitMs: 2_000,
  // Enough to count any window's use: a reservation counts until its window has reset, and a moment
  // before that (transitMs).
  keepReservationsMs: 2_000,
  // A job between two batches asks again within a window; one silent for two of the longest has
  // stopped or died, and its share goes to the others.
  staleAfterPeriods: 2,
  // A library client's one-item calls asked the store's pacer before each request: one round trip in
  // turn for every call, and its report another beside it. A lease of 32 requests makes it one in
  // 32, where the windows are wide enough (a hundredth of each: 32 one-item calls need windows of
  // 3,200) that reserving ahead holds nothing another job would miss; at the self-serve plan's 250
  // a minute, grants are never leased. What a job stopped or killed leaves of one counts until its
  // window resets, as its requests in flight would.
  leaseRequests: 32,
  leasePart: 0.01,
  leaseMs: 1_000,
  // The part of each window where jobs that cannot see each other's reservations take equal shares
  // at once; after it, what is left goes in turns. A tenth: a 6 s window's first 600 ms.
  sharedPart: 0.1,
  // In turns, every job there sends once per round: what is left goes to all of them, not to
  // whichever answers fastest. 40 rounds: 150 ms of a 6 s window, 25 ms of a second.
  scrambleRounds: 40,
  // A send of ours just before a reset may be counted in the window before as well: a count this
  // far over our own sends is still ours.
  othersSlack: 0.01,
  // Jobs of a crontab pause between batches and wait out longer windows: seen once, they are assumed
  // to stay for two of the longest windows, and the clients counted in their rounds as long.
  seenForPeriods: 2,
};

// --- retries ------------------------------------------------------------------------------------

/**
 * How a request is tried again: one policy for every request. The decisions on it
 * (client/retry-policy.ts) are pure functions of the error, the attempts so far and the time, so
 * the loop that acts on them (pipeline/send-batch.ts) holds no policy of its own and tests can
 * check every timing without waiting.
 */
export interface RetryPolicy {
  /** Retries of a transient failure (5xx, timeout, dropped connection) before it is final. */
  maxRetries: number;
  /**
   * Of those, the most for a success whose body cannot be read (UnreadableAnswerError): each such
   * answer may have been charged, and one that came back broken twice is not a passing hiccup.
   */
  maxUnreadableRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest wait for the rate limit (a 429's reset, a spent window), in all, before the run stops. */
  maxWaitMs: number;
  /**
   * Slack after a 429's stated reset: clocks differ and transit takes time. With the jitter, less
   * than the limiter's own margin after a reset (minMarginMs): a job refused because others took
   * the window comes back just before them, is counted, and so is seen by them (jobs on other
   * machines see each other only in the service's counts).
   */
  rateLimitMarginMs: number;
  /**
   * The most random delay added after a 429's reset (at most a tenth of the wait itself), so that
   * jobs refused together do not all come back at one instant. Small: each job takes only its
   * share of a window's first part (the pacing policy's sharedPart), so a crowd at the reset
   * overruns nothing, while one that came back late would find the window taken and be refused again.
   */
  rateLimitJitterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  maxUnreadableRetries: 1,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxWaitMs: DEFAULT_MAX_WAIT_MS.batch,
  rateLimitMarginMs: 10,
  rateLimitJitterMs: 30,
};

// --- a request's time ---------------------------------------------------------------------------

/** How long a request may take (a module of its own once: option declarations read them without loading undici). */
export interface Timeouts {
  connectMs: number;
  /**
   * The whole exchange, from sending to the body's last byte: a deadline, not an idle timer (a
   * server dripping a byte a second would otherwise hold a request forever). It also bounds
   * undici's own waits for the headers and between body chunks.
   */
  responseMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, responseMs: 60_000 };

// --- claims and leases (store/PROTOCOL.md) ------------------------------------------------------

export const CLAIMS = {
  /**
   * How long a claim on a section stands without its run renewing it: a job killed mid-request
   * holds the sections it was buying this long at most, then a waiting job buys them itself.
   */
  leaseMs: 60_000,
  /** Claims are renewed three times a lease: one late renewal never lets a live run's claim lapse. */
  renewalMs: 20_000,
  /** How often items another job is sending are looked up again: a few per request's round trip, a trifle for the store. */
  waitPollMs: 250,
  /**
   * How long an item waits for another job's answer before this run buys it itself. A claim is
   * taken as its batch is sent, so a live holder answers within its wait for the rate limit (at
   * most --max-wait, 15 minutes, after which it stops and gives its claims up) and its retries; a
   * dead one's claim lapses within a lease. Past both, something is wrong with the holder: better
   * to buy an answer twice than to wait forever.
   */
  waitLimitMs: 20 * 60_000,
  /**
   * PostgreSQL: no job waits longer than this for a lock another holds (a claim's sections, the
   * account's pacer): they are held for milliseconds, so a longer wait means a job stopped
   * mid-transaction, which the database cuts off after idleInTransactionMs.
   */
  lockTimeoutMs: 20_000,
  idleInTransactionMs: 10_000,
} as const;

// --- the store ----------------------------------------------------------------------------------

/**
 * How far ahead of its output a run looks its rows up in the store (pipeline/run-batch.ts): blocks
 * of `blockItems` items, each one statement (PostgreSQL) or one read (SQLite), up to
 * `blocksInFlight` of them at once, each applied in its turn. A rerun from PostgreSQL applies one
 * block while the database, on the other core, answers the next ones: 4 blocks of 100 left a
 * 50,000-row rerun waiting for its lookups 1.2 to 2.5 s on a loaded machine, 4 blocks of 400 about
 * 0.5 s, and the database spends less a row on fewer, larger statements (its CPU 15% less at 200).
 * But what is looked up waits parsed until its turn: the further ahead, the more the young
 * generation copies at each scavenge. At most blockItems × blocksInFlight items wait for their
 * lookup, whatever the input's size. Blocks stay at 100, a request's items: at 200, a first run
 * into PostgreSQL against a fast server grew with its input (peak RSS 191 MB at 20,000 rows, 372 MB
 * at 100,000, against 171 and 184 at 100; BENCHMARKS.md, postgresSpeed), which no gain measured
 * beside the noise pays for.
 */
export const STORE_LOOKAHEAD = { blockItems: 100, blocksInFlight: 4 } as const;

export const STORE_WAITS = {
  /** The first wait before a store that stopped answering is tried again, doubled each time up to outageMaxDelayMs. */
  outageFirstDelayMs: 500,
  /** Often enough to carry on within seconds of a restart; seldom enough to leave a recovering database alone. */
  outageMaxDelayMs: 10_000,
  /**
   * How long a batch waits for a store that stopped answering before it stops (--store-wait; sending
   * paused meanwhile): a database restarts in seconds, and a managed one fails over in 30 to 60;
   * five minutes rides out both with room, and is still short beside a night's run.
   */
  outageWaitMs: 5 * 60_000,
  /** A database that does not accept a connection in this long is unreachable: one message, not a hang. */
  connectTimeoutMs: 10_000,
  /** Nor a statement unanswered this long: a stalled connection is an outage from then on (docs/several-machines.md: 30 s). */
  queryTimeoutMs: 30_000,
  /** SQLite: how long to wait for another process's write to finish before giving up on the file. */
  busyTimeoutMs: 10_000,
  /** The rate-limit windows an earlier run saw are trusted this long; older ones are learnt again from the service. */
  windowsFreshMs: 7 * 86_400_000,
  /** A record beside the store left half written by a process that died is removed after this long. */
  pendingAbandonedMs: 3_600_000,
  /**
   * PostgreSQL: once another session changed the shared pacer's state since this one last wrote it,
   * this one reads it under the lock for this long before it writes on what it last wrote again (a
   * pacer shared by busy sessions is read first, two round trips, not tried in one and then read).
   */
  pacerContestedMs: 1_000,
} as const;

/**
 * SQLite: a lookup of threadFromItems items or more (a batch's blocks: pipeline/run-batch.ts, 100
 * items) is read on a thread of its own (store/sqlite/lookups-off-thread.ts), beside the main
 * thread's work; a smaller one (a one-item call's) is read at once on the store's connection,
 * without a thread's round trip...
 */
export const STORE_LOOKUPS = {
  threadFromItems: 50,
  /**
   * ...once this process's batch lookups on the store have passed this many items: the thread's
   * start costs 0.1 to 0.3 s of CPU, while the lookups it takes over cost about 5 µs an item; a
   * short batch would pay it for nothing. Under 10,000 rows so that the memory figure's small run
   * (BENCHMARKS.md: 10,000 rows) carries the thread's memory (12 to 18 MB) as its large one does.
   */
  threadAfterItems: 5_000,
  /** Only where a second core can run it: on one, the thread's SQL takes turns with the main thread, and the hand-over is extra. */
  threadFromCores: 2,
  /**
   * The thread's page cache, KiB. better-sqlite3's SQLite defaults to 16 MB, and a rerun reads each
   * page once: the cache only filled up with the rows read (a rerun's peak RSS with the thread,
   * 200,000 rows: 186-193 MB with 16 MB, 174-179 MB with 2; 10,000 rows: 144-149 MB either way).
   * What it reads again, the index's inner pages, fits in far less.
   */
  threadCacheKib: 2_048,
} as const;

// --- the output's lock --------------------------------------------------------------------------

export const OUTPUT_LOCK = {
  /**
   * A stall or a suspend shorter than this does not cost the lock (proper-lockfile gives up a lock
   * it could not refresh for this long). A holder that died on this machine is seen by its pid at
   * once, so the long threshold only delays taking over from another machine's dead run.
   */
  staleMs: 60_000,
  /** How often the lock's mtime is refreshed: often enough that a busy minute does not cost it. */
  refreshMs: 10_000,
} as const;

// --- the gateway (propdata serve) ---------------------------------------------------------------

export const GATEWAY_WAITS = {
  /** Under the 60 s a propdata client (and most HTTP clients) waits for an answer before giving up. */
  maxWaitMs: 50_000,
  /** Keys and every gateway's spend are read again this often: a key revoked elsewhere stops working within it. */
  refreshMs: 2_000,
  /** How long SIGTERM lets requests in flight finish before the ones still waiting are answered 503. */
  drainMs: 10_000,
  /** A client is active (the status page) while it has a request in flight, and for this long after its last one. */
  activeForMs: 60_000,
  /** A client has this long to send its headers, and its whole request: a slow one cannot hold a connection open. */
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  /** The wait after a client address's first failed login, doubled with each further one up to loginMaxDelayMs... */
  loginFirstDelayMs: 250,
  /** ...guessing a 256-bit secret is hopeless, and this makes trying it slow too. */
  loginMaxDelayMs: 8_000,
  /** An address whose last failed login is this old starts afresh. */
  loginForgetAfterMs: 15 * 60_000,
  /**
   * A call's hold on its budgets lapses this long after it was made or renewed (every refresh):
   * a gateway killed mid-call holds a key's budget no longer than this.
   */
  holdLeaseMs: 60_000,
  /** `keys rotate`: the old secret still opens the gateway this long, for the key's holders to move to the new one. */
  rotateGraceMs: 24 * 3_600_000,
} as const;

/**
 * The gateway's door: what a connection and a login may cost it. Checking a secret costs
 * microseconds (gateway/key-secrets.ts); what is bounded here is what a client can make the gateway
 * hold: connections, failed logins held back, and the scrypt checks of keys still under an older
 * propdata's hash.
 */
export const GATEWAY_DOOR = {
  /**
   * Connections open at once. Past it, a new one closes the longest-idle connection (one not in
   * the middle of a request): idle sockets cannot lock new clients out. Well under the usual
   * 20,000 file descriptors a process may have, which would otherwise run out first.
   */
  maxConnections: 10_000,
  /** How often Node looks for a request past headersTimeout or requestTimeout: a slow body is cut within a second of its limit. */
  timeoutCheckMs: 1_000,
  /** Failed logins from one client address being held back at once; more are refused 429 at once, and their connection closed. */
  heldFailuresPerAddress: 32,
  /** Failed logins held back at once, from every address: a scan from many addresses holds no more than this many timers. */
  heldFailures: 2_000,
  /** scrypt checks (a key under an older propdata's hash, 32 MiB each) run at once... */
  legacyChecksAtOnce: 2,
  /** ...and waiting for their turn; more are answered 503, to come back in a second. */
  legacyChecksWaiting: 64,
  /** /readyz: how long the service's address may take to accept a connection. */
  readyProbeMs: 2_000,
} as const;

// --- relations ----------------------------------------------------------------------------------

/** A table above with any numbers in it (its own are literal types). */
type Numbers<T> = { readonly [K in keyof T]: number };

/** The relations the numbers above must keep, as sentences of what is wrong: none when all hold. */
// Exported for test/policy/policy.test.ts: a policy that breaks a rule, which the defaults never do.
export function policyProblems(policy: {
  pacing: ThrottlePolicy;
  retry: RetryPolicy;
  timeouts: Timeouts;
  claims: Numbers<typeof CLAIMS>;
  store: Numbers<typeof STORE_WAITS>;
  outputLock: Numbers<typeof OUTPUT_LOCK>;
  gateway: Numbers<typeof GATEWAY_WAITS>;
}): string[] {
  const { pacing, retry, timeouts, claims, store, outputLock, gateway } = policy;
  const rules: [boolean, string][] = [
    // A job refused because others took the window comes back just before them (RetryPolicy.rateLimitMarginMs).
    [
      retry.rateLimitMarginMs + retry.rateLimitJitterMs < pacing.minMarginMs,
      "a 429 retry's margin and jitter must be less than the limiter's margin after a reset",
    ],
    [pacing.maxWaitMs === retry.maxWaitMs, 'the pacer and the retry policy must wait for the rate limit alike (--max-wait)'],
    [claims.renewalMs * 2 <= claims.leaseMs, 'a claim must be renewed at least twice a lease'],
    [claims.waitPollMs < claims.leaseMs, 'a waiting job must look again well within a lease'],
    [claims.waitLimitMs > retry.maxWaitMs + claims.leaseMs, "a wait for another job's answer must outlast its rate-limit wait and a lease"],
    [
      claims.idleInTransactionMs < claims.lockTimeoutMs,
      'a job stalled holding a lock must be cut off before the others stop waiting for it',
    ],
    [
      store.outageFirstDelayMs <= store.outageMaxDelayMs && store.outageMaxDelayMs < store.outageWaitMs,
      "the outage's backoff must stay within its wait",
    ],
    [store.queryTimeoutMs < store.outageWaitMs, 'a stalled statement must be noticed well within --store-wait'],
    [outputLock.refreshMs * 3 <= outputLock.staleMs, "the output's lock must be refreshed several times before it would be stale"],
    [timeouts.connectMs <= timeouts.responseMs, 'connecting must take no longer than the whole exchange may'],
    [gateway.maxWaitMs < timeouts.responseMs, 'a gateway must answer before a propdata client stops waiting for it'],
    [
      gateway.loginFirstDelayMs <= gateway.loginMaxDelayMs && gateway.loginMaxDelayMs < gateway.loginForgetAfterMs,
      'a failed login must be remembered longer than it is made to wait',
    ],
    [gateway.refreshMs * 3 <= gateway.holdLeaseMs, "a call's hold on its budgets must be renewed several times a lease"],
  ];
  return rules.flatMap(([holds, problem]) => (holds ? [] : [problem]));
}

/** Every default above, as policyProblems reads them. */
// Exported for test/policy/policy.test.ts: every default together, checked against the rules.
export const DEFAULT_POLICY = {
  pacing: DEFAULT_THROTTLE_POLICY,
  retry: DEFAULT_RETRY_POLICY,
  timeouts: DEFAULT_TIMEOUTS,
  claims: CLAIMS,
  store: STORE_WAITS,
  outputLock: OUTPUT_LOCK,
  gateway: GATEWAY_WAITS,
};

const problems = policyProblems(DEFAULT_POLICY);
if (problems.length > 0) throw new Error(`propdata's timing policy contradicts itself: ${problems.join('; ')}`);
