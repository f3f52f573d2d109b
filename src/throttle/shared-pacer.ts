import type { ReportedWindow } from './rate-headers.js';

/**
 * One account's pacing shared by several processes on one machine: the windows as the service
 * states them, and every process's reservations in them. Each process reserves components before
 * it sends, so N jobs together never ask more of a window than it holds; the store keeps this in
 * one SQLite row updated inside a write transaction. The rules live here, as pure functions on a
 * plain state, so that the store and the tests' in-memory pacer apply the very same ones.
 */
export interface SharedPacer {
  /** This process will ask: it counts among those sharing each window from now on, before its first grant. */
  join(now: number): void;
  /** Reserves up to `wanted` components (whole units, at least one unit) in every window, or says when to ask again. */
  reserve(request: ShareRequest): ShareGrant;
  /** A response's windows (`reservation`: the id its request was granted under). */
  report(reservation: number | undefined, reported: readonly ReportedWindow[], now: number): void;
  /** The service refused the request (429) and did not count it. */
  refund(reservation: number, now: number): void;
  /** This process asks for nothing more: its share goes to the others at once. */
  leave(now: number): void;
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
  unit: number;
  windows: readonly ShareWindow[];
  now: number;
  /** A request reserved this long before a reset may reach the service after it: it is counted in both windows. */
  transitMs: number;
}

export type ShareGrant = { components: number; id: number } | { components: 0; retryAt: number };

interface SharedWindow {
  periodMs: number;
  limit: number;
  resetAt: number | undefined;
  /** Components the service had counted in the window ending resetAt when it answered the request reserved as `serviceAfter`. */
  serviceUsed: number;
  serviceAfter: number;
}

interface SharedReservation {
  id: number;
  owner: string;
  at: number;
  components: number;
}

export interface SharedState {
  nextId: number;
  windows: SharedWindow[];
  reservations: SharedReservation[];
  /** Processes asking for components, and when each last asked: a window's room is shared among these. */
  owners: { owner: string; seen: number }[];
}

export function emptySharedState(): SharedState {
  return { nextId: 0, windows: [], reservations: [], owners: [] };
}

/**
 * For the first part of a window (this fraction of it) no process takes more than an equal share
 * of it; after that, what is left goes to whoever asks, so a share nobody claims is not wasted.
 */
export const FAIR_PART = 0.5;

/** Reservations are kept this long past the longest window: enough to count any window's use. */
const KEEP_MS = 2_000;

function roll(window: SharedWindow, now: number): void {
  if (window.resetAt === undefined || window.resetAt > now) return;
  const periods = Math.floor((now - window.resetAt) / window.periodMs) + 1;
  window.resetAt += periods * window.periodMs;
  window.serviceUsed = 0;
  window.serviceAfter = Number.MAX_SAFE_INTEGER;
}

/** The earliest reservation time that counts in `window` now. */
function countsFrom(window: SharedWindow, now: number, transitMs: number): number {
  return window.resetAt === undefined ? now - window.periodMs : window.resetAt - window.periodMs - transitMs;
}

function used(state: SharedState, window: SharedWindow, from: number, owner?: string): number {
  let local = 0;
  let later = 0;
  for (const reservation of state.reservations) {
    if (reservation.at < from || (owner !== undefined && reservation.owner !== owner)) continue;
    local += reservation.components;
    if (reservation.id > window.serviceAfter) later += reservation.components;
  }
  // Ours (every process here) exactly; the service's count also sees other machines.
  return owner !== undefined ? local : Math.max(local, window.serviceUsed + later);
}

function adopt(state: SharedState, windows: readonly ShareWindow[]): void {
  state.windows = windows.map((spec) => {
    const known = state.windows.find((window) => window.periodMs === spec.periodMs);
    if (known) {
      known.limit = spec.limit;
      if (known.resetAt === undefined || (spec.resetAt !== undefined && spec.resetAt > known.resetAt)) {
        // A later window than the one the service's count is for: nothing counted in it yet.
        Object.assign(known, { resetAt: spec.resetAt, serviceUsed: 0, serviceAfter: Number.MAX_SAFE_INTEGER });
      }
      return known;
    }
    return { periodMs: spec.periodMs, limit: spec.limit, resetAt: spec.resetAt, serviceUsed: 0, serviceAfter: Number.MAX_SAFE_INTEGER };
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
 * Grants `owner` what every window has room for, up to `wanted`, in whole units: room being the
 * window's limit less everything reserved in it by any process (and less what the service counted,
 * when that is more: other machines). While several processes ask, each gets at most an equal share
 * of a window in its first part (FAIR_PART), so equal jobs fill each window together.
 */
export function reserveIn(state: SharedState, owner: string, request: ShareRequest): ShareGrant {
  const { now, unit, transitMs } = request;
  // Only windows the service has stated are shared: a run still on --rate's assumption (before its
  // first answer) follows the windows the others were told, and never imposes its guess on them.
  const stated = request.windows.filter((window) => window.resetAt !== undefined);
  if (stated.length > 0) adopt(state, stated);
  for (const window of state.windows) roll(window, now);
  prune(state, now, staleAfter(request.windows));
  joinIn(state, owner, now);
  const sharing = state.owners.length;
  let room = request.wanted;
  let retryAt = now;
  for (const window of state.windows) {
    const marginMs = request.windows.find((w) => w.periodMs === window.periodMs)?.marginMs ?? Math.max(50, window.periodMs * 0.005);
    const from = countsFrom(window, now, transitMs);
    const free = window.limit - used(state, window, from);
    let allowed = free;
    let readyAt = window.resetAt === undefined ? nextAgeOut(state, window, from, unit) : window.resetAt + marginMs;
    if (sharing > 1 && window.resetAt !== undefined) {
      const fairUntil = window.resetAt - window.periodMs * (1 - FAIR_PART);
      if (now < fairUntil) {
        const share = Math.max(unit, Math.ceil(window.limit / sharing)) - used(state, window, from, owner);
        if (share < free) {
          allowed = share;
          if (share < unit) readyAt = fairUntil;
        }
      }
    }
    room = Math.min(room, allowed);
    if (allowed < unit) retryAt = Math.max(retryAt, readyAt);
  }
  const grant = Math.floor(Math.max(0, room) / unit) * unit;
  if (grant < unit || grant === 0) return { components: 0, retryAt: Math.max(retryAt, now + 1) };
  state.nextId += 1;
  state.reservations.push({ id: state.nextId, owner, at: now, components: grant });
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
  for (const report of reported) {
    const periodMs = report.periodSeconds * 1000;
    let window = state.windows.find((w) => w.periodMs === periodMs);
    if (!window) {
      window = { periodMs, limit: report.limit, resetAt: report.resetAt, serviceUsed: 0, serviceAfter: Number.MAX_SAFE_INTEGER };
      state.windows.push(window);
    }
    window.limit = report.limit;
    roll(window, now);
    if (window.resetAt === undefined || report.resetAt > window.resetAt) {
      window.resetAt = report.resetAt;
      window.serviceUsed = 0;
      window.serviceAfter = Number.MAX_SAFE_INTEGER;
    }
    if (report.resetAt !== window.resetAt) continue;
    const after = reservation ?? state.nextId;
    // The answer to the latest reservation is the latest word: its count and every reservation
    // made after it bound what the service has counted (the reservations here are counted anyway).
    const fresher = window.serviceAfter === Number.MAX_SAFE_INTEGER || after > window.serviceAfter;
    const higher = after === window.serviceAfter && report.limit - report.remaining > window.serviceUsed;
    if (fresher || higher) Object.assign(window, { serviceUsed: report.limit - report.remaining, serviceAfter: after });
  }
}

export function joinIn(state: SharedState, owner: string, now: number): void {
  const me = state.owners.find((entry) => entry.owner === owner);
  if (me) me.seen = now;
  else state.owners.push({ owner, seen: now });
}

export function refundIn(state: SharedState, reservation: number): void {
  state.reservations = state.reservations.filter((entry) => entry.id !== reservation);
}

export function leaveIn(state: SharedState, owner: string): void {
  state.owners = state.owners.filter((entry) => entry.owner !== owner);
}

/** The shared pacer over a state in memory: several limiters in one process (tests), with the store's rules. */
export class MemoryPacer implements SharedPacer {
  readonly #state: SharedState;
  readonly #owner: string;

  constructor(state: SharedState, owner: string) {
    this.#state = state;
    this.#owner = owner;
  }

  join(now: number): void {
    joinIn(this.#state, this.#owner, now);
  }

  reserve(request: ShareRequest): ShareGrant {
    return reserveIn(this.#state, this.#owner, request);
  }

  report(reservation: number | undefined, reported: readonly ReportedWindow[], now: number): void {
    reportIn(this.#state, reservation, reported, now);
  }

  refund(reservation: number): void {
    refundIn(this.#state, reservation);
  }

  leave(): void {
    leaveIn(this.#state, this.#owner);
  }
}
