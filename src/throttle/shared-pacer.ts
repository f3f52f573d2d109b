import type { Clock } from './clock.js';
import type { ReportedWindow } from './rate-headers.js';

/**
 * One account's pacing shared by several processes: the windows as the service states them, and
 * every process's reservations in them. Each process reserves components before it sends, so N
 * jobs together never ask more of a window than it holds. Asynchronous, because a store on a
 * network database reserves inside a database transaction; the SQLite store keeps the state in one
 * row updated inside a write transaction. The rules live here, as pure functions of
 * (state, request, now), so that every store and the tests' in-memory pacer apply the very same
 * ones; each store supplies `now` from its own clock (a shared database's is the only clock all
 * machines see). Times in requests and grants (`resetAt`, `retryAt`) are on that clock: the SQLite
 * store and the in-memory pacer are given the run's own clock, so they are the limiter's times too.
 */
export interface SharedPacer {
  /** This process will ask: it counts among those sharing each window from now on, before its first grant. */
  join(): Promise<void>;
  /** Reserves up to `wanted` components (whole units, at least one unit) in every window, or says when to ask again. */
  reserve(request: ShareRequest): Promise<ShareGrant>;
  /** A response's windows (`reservation`: the id its request was granted under). */
  report(reservation: number | undefined, reported: readonly ReportedWindow[]): Promise<void>;
  /** The service refused the request (429) and did not count it. */
  refund(reservation: number): Promise<void>;
  /** This process asks for nothing more: its share goes to the others at once. */
  leave(): Promise<void>;
}

/** A window as one limiter knows it: the service's reset when it has stated one. */
export interface ShareWindow {
  periodMs: number;
  limit: number;
  /** Epoch ms the current fixed window ends; undefined before the service has said (counted as a sliding period then). */
  resetAt?: number | undefined;
  /** Slack after a reset before the new window is used: clock skew and transit. */
  marginMs: number;
}

export interface ShareRequest {
  wanted: number;
  /** Everything this process is waiting to send, `wanted` included: its claim on the windows' fair shares. */
  demand: number;
  unit: number;
  windows: readonly ShareWindow[];
  /** A request reserved this long before a reset may reach the service after it: it is counted in both windows. */
  transitMs: number;
  /**
   * For `graceMs` after a process joins it takes at most a window's limit over `clients` + 1: jobs
   * started together join a few hundred ms apart, and the first would otherwise take the whole
   * first window before the others join (OtherClientsPolicy.startGraceMs, assumedClients).
   */
  start: { graceMs: number; clients: number };
}

export type ShareGrant = { components: number; id: number } | { components: 0; retryAt: number };

interface SharedWindow {
  periodMs: number;
  limit: number;
  resetAt: number | undefined;
  /** The most components the service said it had counted in the window ending resetAt (its answers arrive in any order). */
  serviceUsed: number;
}

interface SharedReservation {
  id: number;
  owner: string;
  at: number;
  components: number;
  /** Its answer has come (the service counted it, unless it was refused and refunded). */
  answered?: true;
  /** The reset of each window (by period) the service counted it in, as its answer said. */
  countedBy?: { periodMs: number; resetAt: number }[];
}

export interface SharedState {
  nextId: number;
  windows: SharedWindow[];
  reservations: SharedReservation[];
  /**
   * Processes asking for components, when each last asked and what it still wants (absent from a
   * process of an earlier version sharing the store): a window's room is shared among these.
   */
  owners: { owner: string; seen: number; wants?: number; since?: number }[];
  /** The first request while no window is known, whose answer will state them: the others wait for it. */
  probe?: { id: number; owner: string; at: number; answered: boolean };
}

export function emptySharedState(): SharedState {
  return { nextId: 0, windows: [], reservations: [], owners: [] };
}

/**
 * How soon a process held back only by the others' shares asks again: a share claimed by a process
 * that then asks for less (its demand was met elsewhere, or it finished) goes to the others this soon.
 */
export const RECHECK_MS = 200;

/**
 * While no process knows the windows, only one request goes out (the probe) and the others wait for
 * its answer, at most this long: eight jobs probing at once would overrun a window of 50.
 */
export const PROBE_WAIT_MS = 2_000;

/** Reservations are kept this long past the longest window: enough to count any window's use. */
const KEEP_MS = 2_000;

function roll(window: SharedWindow, now: number): void {
  if (window.resetAt === undefined || window.resetAt > now) return;
  const periods = Math.floor((now - window.resetAt) / window.periodMs) + 1;
  window.resetAt += periods * window.periodMs;
  window.serviceUsed = 0;
}

/** The earliest reservation time that counts in `window` now. */
function countsFrom(window: SharedWindow, now: number, transitMs: number): number {
  return window.resetAt === undefined ? now - window.periodMs : window.resetAt - window.periodMs - transitMs;
}

/**
 * A reservation made a moment before the window began (counted in it, as it may have arrived after
 * the reset) that its answer says the service counted in the window before: counted twice, a
 * window's last request took its room from the next one too.
 */
function countedBefore(reservation: SharedReservation, window: SharedWindow): boolean {
  const counted = reservation.countedBy?.find((entry) => entry.periodMs === window.periodMs);
  return counted !== undefined && window.resetAt !== undefined && counted.resetAt < window.resetAt;
}

/** What the processes here (or `owner` alone) reserved in the window, and how much of it is still unanswered. */
function reserved(state: SharedState, window: SharedWindow, from: number, owner?: string): { local: number; unanswered: number } {
  let local = 0;
  let unanswered = 0;
  for (const reservation of state.reservations) {
    if (reservation.at < from || (owner !== undefined && reservation.owner !== owner)) continue;
    if (countedBefore(reservation, window)) continue;
    local += reservation.components;
    if (!reservation.answered) unanswered += reservation.components;
  }
  return { local, unanswered };
}

function used(state: SharedState, window: SharedWindow, from: number, owner?: string): number {
  const { local, unanswered } = reserved(state, window, from, owner);
  // Ours (every process here) exactly; the service's count also sees other machines. Every answered
  // request is in its highest count (a request that arrived later would have counted higher); those
  // still in flight may not be, so they are added whole, and the sum is exact once none is.
  return owner !== undefined ? local : Math.max(local, window.serviceUsed + unanswered);
}

function adopt(state: SharedState, windows: readonly ShareWindow[]): void {
  state.windows = windows.map((spec) => {
    const known = state.windows.find((window) => window.periodMs === spec.periodMs);
    if (known) {
      known.limit = spec.limit;
      if (known.resetAt === undefined || (spec.resetAt !== undefined && spec.resetAt > known.resetAt)) {
        // A later window than the one the service's count is for: nothing counted in it yet.
        Object.assign(known, { resetAt: spec.resetAt, serviceUsed: 0 });
      }
      return known;
    }
    return { periodMs: spec.periodMs, limit: spec.limit, resetAt: spec.resetAt, serviceUsed: 0 };
  });
}

function prune(state: SharedState, now: number, staleMs: number): void {
  const longest = Math.max(0, ...state.windows.map((window) => window.periodMs));
  state.reservations = state.reservations.filter((reservation) => reservation.at > now - longest - KEEP_MS);
  state.owners = state.owners.filter((owner) => owner.seen > now - staleMs);
}

/** An owner that has not asked for this long has stopped (or died): its share goes to the others. */
export function staleAfter(windows: readonly ShareWindow[]): number {
  return 2 * Math.max(1_000, ...windows.map((window) => window.periodMs + window.marginMs)) + KEEP_MS;
}

/**
 * The most `owner` may have reserved in `window` now: its max-min fair share of what the processes
 * here may use (the limit, less what owners no longer asking and other machines used). Each owner
 * claims what it used in the window plus what it still wants; an owner claiming less than an equal
 * share leaves the rest to the others, so equal jobs fill each window in equal parts and nothing a
 * job does not want is held back.
 */
function fairShare(state: SharedState, window: SharedWindow, from: number, owner: string): number {
  const claims = state.owners.map((entry) => {
    const usedByOwner = used(state, window, from, entry.owner);
    return { owner: entry.owner, usedByOwner, claim: usedByOwner + (entry.wants ?? 0) };
  });
  let pool = window.limit - (used(state, window, from) - claims.reduce((sum, entry) => sum + entry.usedByOwner, 0));
  claims.sort((a, b) => a.claim - b.claim);
  for (const [index, entry] of claims.entries()) {
    const level = pool / (claims.length - index);
    if (entry.claim > level) return Math.ceil(level);
    if (entry.owner === owner) return entry.claim;
    pool -= entry.claim;
  }
  return 0;
}

/**
 * Grants `owner` what every window has room for, up to `wanted`, in whole units: room being the
 * window's limit less everything reserved in it by any process (and less what the service counted,
 * when that is more: other machines), and no more than the owner's fair share while others ask.
 */
export function reserveIn(state: SharedState, owner: string, request: ShareRequest, now: number): ShareGrant {
  const { unit, transitMs } = request;
  const demand = Math.max(request.wanted, request.demand);
  // Only windows the service has stated are shared: a run still on --rate's assumption (before its
  // first answer) follows the windows the others were told, and never imposes its guess on them.
  const stated = request.windows.filter((window) => window.resetAt !== undefined);
  if (stated.length > 0) adopt(state, stated);
  for (const window of state.windows) roll(window, now);
  prune(state, now, staleAfter(request.windows));
  joinIn(state, owner, now, demand);
  const probe = state.probe;
  if (state.windows.length === 0 && probe && !probe.answered && probe.owner !== owner && probe.at > now - PROBE_WAIT_MS) {
    return { components: 0, retryAt: now + RECHECK_MS };
  }
  let room = request.wanted;
  let retryAt = now;
  for (const window of state.windows) {
    const marginMs = request.windows.find((w) => w.periodMs === window.periodMs)?.marginMs ?? Math.max(50, window.periodMs * 0.005);
    const from = countsFrom(window, now, transitMs);
    const free = window.limit - used(state, window, from);
    const starting = now < (state.owners.find((entry) => entry.owner === owner)?.since ?? -Infinity) + request.start.graceMs;
    const fair = fairShare(state, window, from, owner);
    const share =
      (starting ? Math.min(fair, Math.floor(window.limit / (request.start.clients + 1))) : fair) - used(state, window, from, owner);
    const allowed = Math.min(free, share);
    const nextWindow = window.resetAt === undefined ? nextAgeOut(state, window, from, unit) : window.resetAt + marginMs;
    room = Math.min(room, allowed);
    // Held back by the others' shares alone, or by requests in flight (counted whole, though the
    // service's count may hold them already) rather than by what was reserved here: ask again
    // soon, in case they claim less, or their answers show room. Waiting for the next window
    // instead, one of 8 jobs left the last 29 of a window of 250 unused, and took a fifth window.
    if (allowed < unit) {
      const soon = free >= unit || window.limit - reserved(state, window, from).local >= unit;
      retryAt = Math.max(retryAt, soon ? Math.min(nextWindow, now + RECHECK_MS) : nextWindow);
    }
  }
  const grant = Math.floor(Math.max(0, room) / unit) * unit;
  if (grant < unit || grant === 0) return { components: 0, retryAt: Math.max(retryAt, now + 1) };
  state.nextId += 1;
  state.reservations.push({ id: state.nextId, owner, at: now, components: grant });
  joinIn(state, owner, now, demand - grant);
  if (state.windows.length === 0 && !probe) state.probe = { id: state.nextId, owner, at: now, answered: false };
  return { components: grant, id: state.nextId };
}

/** A sliding period (no reset stated yet): when enough reservations age out for one unit. */
function nextAgeOut(state: SharedState, window: SharedWindow, from: number, unit: number): number {
  let total = used(state, window, from);
  for (const reservation of state.reservations) {
    if (reservation.at < from) continue;
    total -= reservation.components;
    if (total + unit <= window.limit) return reservation.at + window.periodMs;
  }
  return from + window.periodMs;
}

/** The service's count for a window: with the reservations made since, it bounds what it has counted (other machines included). */
export function reportIn(state: SharedState, reservation: number | undefined, reported: readonly ReportedWindow[], now: number): void {
  // The probe's answer: it stated the windows, or that there are none to state (no headers).
  if (state.probe && state.probe.id === reservation) state.probe.answered = true;
  const answered = state.reservations.find((entry) => entry.id === reservation);
  if (answered) {
    answered.answered = true;
    if (reported.length > 0)
      answered.countedBy = reported.map((report) => ({ periodMs: report.periodSeconds * 1000, resetAt: report.resetAt }));
  }
  for (const report of reported) {
    const periodMs = report.periodSeconds * 1000;
    let window = state.windows.find((w) => w.periodMs === periodMs);
    if (!window) {
      window = { periodMs, limit: report.limit, resetAt: report.resetAt, serviceUsed: 0 };
      state.windows.push(window);
    }
    window.limit = report.limit;
    roll(window, now);
    if (window.resetAt === undefined || report.resetAt > window.resetAt) {
      window.resetAt = report.resetAt;
      window.serviceUsed = 0;
    }
    if (report.resetAt !== window.resetAt) continue;
    // The service's count only grows within a window: the highest is the latest word.
    window.serviceUsed = Math.max(window.serviceUsed, report.limit - report.remaining);
  }
}

export function joinIn(state: SharedState, owner: string, now: number, wants = 0): void {
  const me = state.owners.find((entry) => entry.owner === owner);
  if (me) Object.assign(me, { seen: now, wants });
  else state.owners.push({ owner, seen: now, wants, since: now });
}

export function refundIn(state: SharedState, reservation: number): void {
  state.reservations = state.reservations.filter((entry) => entry.id !== reservation);
  // A refused probe stated nothing usable to the others: the next process to ask probes.
  if (state.probe?.id === reservation) delete state.probe;
}

export function leaveIn(state: SharedState, owner: string): void {
  state.owners = state.owners.filter((entry) => entry.owner !== owner);
}

/** The shared pacer over a state in memory: several limiters in one process (tests), with the store's rules. */
export class MemoryPacer implements SharedPacer {
  readonly #state: SharedState;
  readonly #owner: string;
  readonly #clock: Pick<Clock, 'now'>;

  constructor(state: SharedState, owner: string, clock: Pick<Clock, 'now'>) {
    this.#state = state;
    this.#owner = owner;
    this.#clock = clock;
  }

  join(): Promise<void> {
    joinIn(this.#state, this.#owner, this.#clock.now());
    return Promise.resolve();
  }

  reserve(request: ShareRequest): Promise<ShareGrant> {
    return Promise.resolve(reserveIn(this.#state, this.#owner, request, this.#clock.now()));
  }

  report(reservation: number | undefined, reported: readonly ReportedWindow[]): Promise<void> {
    reportIn(this.#state, reservation, reported, this.#clock.now());
    return Promise.resolve();
  }

  refund(reservation: number): Promise<void> {
    refundIn(this.#state, reservation);
    return Promise.resolve();
  }

  leave(): Promise<void> {
    leaveIn(this.#state, this.#owner);
    return Promise.resolve();
  }
}
