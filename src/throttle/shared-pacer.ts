import type { ThrottlePolicy } from '../policy/policy.js';
import type { ReportedWindow } from './rate-headers.js';
import { countedBy, countsIn, marginAfterReset, rollForward, startGraceMs, startShare, type CountedIn } from './window-rules.js';

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
  /** A lease (ShareRequest.lease) ends: `unused` of its components were not sent and count no more. */
  endLease(reservation: number, unused: number): Promise<void>;
  /** This process asks for nothing more: its share goes to the others at once. */
  leave(): Promise<void>;
}

/** A window as one limiter knows it: the service's reset when it has stated one (undefined before its first answer). */
export interface ShareWindow {
  periodMs: number;
  limit: number;
  resetAt?: number | undefined;
}

/** The asking job's policy, as far as the shared rules read it. */
export type SharePolicy = Pick<
  ThrottlePolicy,
  | 'marginFraction'
  | 'minMarginMs'
  | 'transitMs'
  | 'startGraceMs'
  | 'startGracePart'
  | 'assumedClients'
  | 'recheckMs'
  | 'probeWaitMs'
  | 'keepReservationsMs'
  | 'staleAfterPeriods'
  | 'leaseRequests'
  | 'leasePart'
  | 'leaseMs'
>;

export interface ShareRequest {
  wanted: number;
  /** The grant is a lease: several requests' worth, kept apart from the owner's other reservations until it ends. */
  lease?: boolean;
  /** The owner's lease before this one ends: what it left unused (endLease, told with the next reservation). */
  ends?: { reservation: number; unused: number };
  /** Everything this process is waiting to send, `wanted` included: its claim on the windows' fair shares. */
  demand: number;
  unit: number;
  windows: readonly ShareWindow[];
  policy: SharePolicy;
}

export type ShareGrant = { components: number; id: number } | { components: 0; retryAt: number };

interface SharedWindow {
  periodMs: number;
  limit: number;
  /** When the service's current fixed window ends: only windows it stated are shared. */
  resetAt: number;
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
  countedBy?: CountedIn[];
  /** A lease not ended yet: what it will not use is taken off when it ends, so it is not joined with others before. */
  lease?: true;
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

/** A window whose reset has passed: the next one, with nothing counted in it yet. */
function roll(window: SharedWindow, now: number): void {
  const resetAt = rollForward(window.resetAt, window.periodMs, now);
  if (resetAt !== window.resetAt) Object.assign(window, { resetAt, serviceUsed: 0 });
}

/** How the window is used now: by every process here (`local`, of which `unanswered` still in flight) and by each owner. */
interface WindowUse {
  local: number;
  unanswered: number;
  byOwner: Map<string, number>;
  /**
   * All of it: ours (every process here) exactly, and the service's count, which also sees other
   * machines. Every answered request is in its highest count (a request that arrived later would
   * have counted higher); those still in flight may not be, so they are added whole, and the sum
   * is exact once none is.
   */
  total: number;
}

function useOf(state: SharedState, window: SharedWindow, now: number, policy: SharePolicy): WindowUse {
  const use = { local: 0, unanswered: 0, byOwner: new Map<string, number>() };
  for (const reservation of state.reservations) {
    if (!countsIn(reservation, window, now, policy)) continue;
    use.local += reservation.components;
    if (!reservation.answered) use.unanswered += reservation.components;
    use.byOwner.set(reservation.owner, (use.byOwner.get(reservation.owner) ?? 0) + reservation.components);
  }
  return { ...use, total: Math.max(use.local, window.serviceUsed + use.unanswered) };
}

function adopt(state: SharedState, windows: readonly (ShareWindow & { resetAt: number })[]): void {
  state.windows = windows.map((spec) => {
    const known = state.windows.find((window) => window.periodMs === spec.periodMs);
    if (!known) return { periodMs: spec.periodMs, limit: spec.limit, resetAt: spec.resetAt, serviceUsed: 0 };
    known.limit = spec.limit;
    // A later window than the one the service's count is for: nothing counted in it yet.
    if (spec.resetAt > known.resetAt) Object.assign(known, { resetAt: spec.resetAt, serviceUsed: 0 });
    return known;
  });
}

function prune(state: SharedState, request: ShareRequest, now: number): void {
  const { policy } = request;
  const longest = Math.max(0, ...state.windows.map((window) => window.periodMs));
  state.reservations = state.reservations.filter((reservation) => reservation.at > now - longest - policy.keepReservationsMs);
  // An owner that has not asked for this long has stopped (or died): its share goes to the others.
  const staleMs =
    policy.staleAfterPeriods * Math.max(...request.windows.map((window) => window.periodMs + marginAfterReset(window.periodMs, policy))) +
    policy.keepReservationsMs;
  state.owners = state.owners.filter((owner) => owner.seen > now - staleMs);
}

/**
 * The most `owner` may have reserved in the window now: its max-min fair share of what the
 * processes here may use (the limit, less what owners no longer asking and other machines used).
 * Each owner claims what it used in the window plus what it still wants; an owner claiming less
 * than an equal share leaves the rest to the others, so equal jobs fill each window in equal parts
 * and nothing a job does not want is held back.
 */
function fairShare(state: SharedState, window: SharedWindow, use: WindowUse, owner: string): number {
  const claims = state.owners.map((entry) => {
    const usedByOwner = use.byOwner.get(entry.owner) ?? 0;
    return { owner: entry.owner, usedByOwner, claim: usedByOwner + (entry.wants ?? 0) };
  });
  let pool = window.limit - (use.total - claims.reduce((sum, entry) => sum + entry.usedByOwner, 0));
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
 * For its start grace after joining, an owner takes at most its start share of a window: jobs
 * started together join a few hundred ms apart, and the first would otherwise take the whole first
 * window before the others join.
 */
// Exported for test/throttle/shared-pacer.test.ts: the shared state's rules without a store.
export function reserveIn(state: SharedState, owner: string, request: ShareRequest, now: number): ShareGrant {
  const { unit, policy } = request;
  if (request.ends) endLeaseIn(state, request.ends.reservation, request.ends.unused);
  const demand = Math.max(request.wanted, request.demand);
  // Only windows the service has stated are shared: a run still on --rate's assumption (before its
  // first answer) follows the windows the others were told, and never imposes its guess on them.
  const stated = request.windows.filter((window): window is ShareWindow & { resetAt: number } => window.resetAt !== undefined);
  if (stated.length > 0) adopt(state, stated);
  for (const window of state.windows) roll(window, now);
  prune(state, request, now);
  joinIn(state, owner, now, demand);
  const probe = state.probe;
  if (state.windows.length === 0 && probe && !probe.answered && probe.owner !== owner && probe.at > now - policy.probeWaitMs) {
    return { components: 0, retryAt: now + policy.recheckMs };
  }
  const since = state.owners.find((entry) => entry.owner === owner)?.since ?? -Infinity;
  const starting = now < since + startGraceMs(policy, request.windows);
  let room = request.wanted;
  let retryAt = now;
  for (const window of state.windows) {
    const use = useOf(state, window, now, policy);
    const free = window.limit - use.total;
    const fair = fairShare(state, window, use, owner);
    const allowed = Math.min(free, (starting ? Math.min(fair, startShare(window.limit, policy)) : fair) - (use.byOwner.get(owner) ?? 0));
    room = Math.min(room, allowed);
    // Held back by the others' shares alone, or by requests in flight (counted whole, though the
    // service's count may hold them already) rather than by what was reserved here: ask again
    // soon, in case they claim less, or their answers show room.
    if (allowed < unit) {
      const nextWindow = window.resetAt + marginAfterReset(window.periodMs, policy);
      const soon = free >= unit || window.limit - use.local >= unit;
      retryAt = Math.max(retryAt, soon ? Math.min(nextWindow, now + policy.recheckMs) : nextWindow);
    }
  }
  const grant = Math.floor(Math.max(0, room) / unit) * unit;
  if (grant < unit || grant === 0) return { components: 0, retryAt: Math.max(retryAt, now + 1) };
  state.nextId += 1;
  state.reservations.push({ id: state.nextId, owner, at: now, components: grant, ...(request.lease ? { lease: true as const } : {}) });
  joinIn(state, owner, now, demand - grant);
  if (state.windows.length === 0 && !probe) state.probe = { id: state.nextId, owner, at: now, answered: false };
  return { components: grant, id: state.nextId };
}

/** The service's count for a window: with the reservations made since, it bounds what it has counted (other machines included). */
// Exported for test/throttle/shared-pacer.test.ts: the shared state's rules without a store.
export function reportIn(state: SharedState, reservation: number | undefined, reported: readonly ReportedWindow[], now: number): void {
  // The probe's answer: it stated the windows, or that there are none to state (no headers).
  if (state.probe && state.probe.id === reservation) state.probe.answered = true;
  const answered = state.reservations.find((entry) => entry.id === reservation);
  if (answered) {
    answered.answered = true;
    if (reported.length > 0) {
      answered.countedBy = countedBy(reported);
      if (!answered.lease) joinAnswered(state, answered);
    }
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
    if (report.resetAt > window.resetAt) Object.assign(window, { resetAt: report.resetAt, serviceUsed: 0 });
    if (report.resetAt !== window.resetAt) continue;
    // The service's count only grows within a window: the highest is the latest word.
    window.serviceUsed = Math.max(window.serviceUsed, report.limit - report.remaining);
  }
  // While no window is stated, an answered reservation counts in none, and once one is, the
  // service's count holds it: it is not kept. A service stating no limit (the sandbox's --rate-limit
  // off) otherwise left two seconds of reservations in the state, 30 KB read and written back at
  // every grant and answer of a fast run.
  if (state.windows.length === 0) state.reservations = state.reservations.filter((entry) => !entry.answered);
}

/** Whether two answers were counted in the same windows by the service. */
const sameWindows = (a: readonly CountedIn[], b: readonly CountedIn[]) =>
  a.length === b.length && a.every((entry) => b.some((other) => other.periodMs === entry.periodMs && other.resetAt === entry.resetAt));

/**
 * An answered reservation joins its owner's answered ones that the service counted in the same
 * windows: one entry, their components summed, counts in every window exactly as they did (the
 * later `at`: a window it might not have counted in by its own send time is one the service counted
 * it in). A state kept one entry a request read and written back at every grant: a window of fast
 * one-item calls held 700 of them, 110 KB parsed and written twice a call. An answered reservation is
 * never refunded (a 429 is refunded before its answer is told), so nothing asks for it by id again.
 */
function joinAnswered(state: SharedState, answered: SharedReservation): void {
  const counted = answered.countedBy!;
  const twin = state.reservations.find(
    (entry) =>
      entry !== answered &&
      entry.answered &&
      !entry.lease &&
      entry.owner === answered.owner &&
      entry.countedBy &&
      sameWindows(entry.countedBy, counted),
  );
  if (!twin) return;
  twin.components += answered.components;
  twin.at = Math.max(twin.at, answered.at);
  state.reservations.splice(state.reservations.indexOf(answered), 1);
}

/** Applies a change to a shared state as it stands, at the store's time, and resolves with what the change returns. */
export type ApplyChange = <T>(change: (state: SharedState, now: number) => T) => Promise<T>;

/**
 * The shared pacer of `owner` over a state kept anywhere: in memory (memory-pacer.ts), or in a
 * store, whose `apply` reads the state, changes it and writes it back inside one transaction.
 * Every store's pacer is this one, so each applies the rules above in the same way.
 */
export function pacerOn(owner: string, apply: ApplyChange): SharedPacer {
  return {
    join: () => apply((state, now) => joinIn(state, owner, now)),
    reserve: (request) => apply((state, now) => reserveIn(state, owner, request, now)),
    report: (reservation, reported) => apply((state, now) => reportIn(state, reservation, reported, now)),
    refund: (reservation) => apply((state) => refundIn(state, reservation)),
    endLease: (reservation, unused) => apply((state) => endLeaseIn(state, reservation, unused)),
    leave: () => apply((state) => leaveIn(state, owner)),
  };
}

function joinIn(state: SharedState, owner: string, now: number, wants = 0): void {
  const me = state.owners.find((entry) => entry.owner === owner);
  if (me) Object.assign(me, { seen: now, wants });
  else state.owners.push({ owner, seen: now, wants, since: now });
}

// Exported for test/throttle/shared-pacer.test.ts: the shared state's rules without a store.
export function refundIn(state: SharedState, reservation: number): void {
  state.reservations = state.reservations.filter((entry) => entry.id !== reservation);
  // A refused probe stated nothing usable to the others: the next process to ask probes.
  if (state.probe?.id === reservation) delete state.probe;
}

/** A lease ends: what it left unused no longer counts, and it is joined with its owner's answered reservations like any other. */
// Exported for test/throttle/pacer-leases.test.ts: the shared state's rules without a store.
export function endLeaseIn(state: SharedState, reservation: number, unused: number): void {
  const entry = state.reservations.find((candidate) => candidate.id === reservation);
  if (entry === undefined) return;
  delete entry.lease;
  entry.components -= Math.min(unused, entry.components);
  if (entry.components === 0) state.reservations.splice(state.reservations.indexOf(entry), 1);
  else if (entry.countedBy) joinAnswered(state, entry);
}

function leaveIn(state: SharedState, owner: string): void {
  state.owners = state.owners.filter((entry) => entry.owner !== owner);
}
