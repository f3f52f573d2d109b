import { narrowOffset, type OffsetBounds } from '../../throttle/service-clock.js';

/**
 * The database's clock as seen from this run: everything the store times is on the database's
 * clock, the only one every machine sees, while the run (its limiter, its waits) keeps its own. The
 * times the two exchange (a window's reset, when to ask again) are converted here.
 *
 * The offset (database − run) is measured as ServiceClock measures the service's: a time the
 * database read during a round trip lies between the run's times of sending and receiving, so
 * each round trip bounds the offset, and the bounds of every round trip together narrow it (the
 * same rule, narrowOffset); a contradiction (a clock was set) starts again from the latest. The
 * middle of what is proven is used: its error is under half the fastest round trip.
 */
export class DatabaseClock {
  readonly runNow: () => number;
  #offset: OffsetBounds | undefined;

  constructor(runNow: () => number) {
    this.runNow = runNow;
  }

  /** The database read `databaseTime` during a round trip sent at `sentAt` and answered at `receivedAt` (run's clock). */
  observe(databaseTime: number, sentAt: number, receivedAt: number): void {
    this.#offset = narrowOffset(this.#offset, { lo: databaseTime - receivedAt, hi: databaseTime - sentAt });
  }

  /** Database time − run time, ms; 0 before any round trip has measured it. */
  get offset(): number {
    return this.#offset === undefined ? 0 : (this.#offset.lo + this.#offset.hi) / 2;
  }

  readonly toDatabase = (runTime: number): number => runTime + this.offset;
  readonly toRun = (databaseTime: number): number => databaseTime - this.offset;

  /**
   * A window's reset, on the database's clock. The shared pacer knows a window by its reset, and
   * every machine converts it with an offset of its own, measured to a fraction of a millisecond
   * and narrowed as it goes: converted as it is, the same window would reach the state as a
   * slightly different time from each machine and each round trip, and a reservation counted in it
   * would seem counted in another. The service states resets in whole seconds
   * (X-RateLimit-Reset), so the converted time is put back on its second, the same from everywhere.
   */
  readonly resetToDatabase = (runTime: number): number => Math.round(this.toDatabase(runTime) / 1000) * 1000;
}
