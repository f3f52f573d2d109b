import type { Clock } from './clock.js';
import type { ReportedWindow } from './rate-headers.js';
import {
  joinIn,
  leaveIn,
  refundIn,
  reportIn,
  reserveIn,
  type ShareGrant,
  type SharedPacer,
  type SharedState,
  type ShareRequest,
} from './shared-pacer.js';

/**
 * The shared pacer over a state in memory: several limiters in one process (the tests, the bench's
 * sweep), with the very rules a store applies, on the clock it is given.
 */
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
