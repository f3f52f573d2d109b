import type { JobView, PaceAsk, PaceDecision, PacedGrant, Pacing } from './pacing.js';
import type { ReportedWindow } from './rate-headers.js';
import type { SharedPacer, SharePolicy } from './shared-pacer.js';

/**
 * Pacing through a shared pacer: every grant is also reserved in its state (in memory, or in a
 * store), which holds each job sharing it to its fair share of every window, and what the service
 * says of its windows is reported there. Calls go one at a time, in the order made: a store then
 * applies an answer before the reservation asked after it, as it was meant. The first call that
 * fails (the store could not be used) fails every reservation after it: the run stops with its
 * error, rather than pacing on without the others.
 */
export class SharedPacing implements Pacing {
  readonly #pacer: SharedPacer;
  readonly #policy: SharePolicy;
  #calls: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  /** Told of the first call that failed: the limiter stops granting at once, even while it waits. */
  readonly #onFailure: (error: unknown) => void;

  constructor(pacer: SharedPacer, policy: SharePolicy, onFailure: (error: unknown) => void) {
    this.#pacer = pacer;
    this.#policy = policy;
    this.#onFailure = onFailure;
    this.#tell((shared) => shared.join());
  }

  async reserve({ wanted, unit, demand }: PaceAsk, job: JobView): Promise<PaceDecision> {
    const windows = job.windows.map((window) => ({ periodMs: window.periodMs, limit: window.limit, resetAt: window.budget?.resetAt }));
    const grant = await this.#call((shared) => shared.reserve({ wanted, demand, unit, windows, policy: this.#policy }));
    return 'id' in grant ? { grant: grant.components, shared: grant.id } : { readyAt: grant.retryAt };
  }

  answered(grant: PacedGrant, reported: readonly ReportedWindow[]): void {
    // Even an answer without windows tells the others that the probe is answered.
    this.#tell((shared) => shared.report(grant.shared, reported));
  }

  refunded({ shared: id }: PacedGrant): void {
    if (id !== undefined) this.#tell((shared) => shared.refund(id));
  }

  /** Calls the shared pacer after every call made before: what it answers, or why it (or one before it) failed. */
  #call<T>(call: (shared: SharedPacer) => Promise<T>): Promise<T> {
    const result = this.#calls.then(() => {
      if (this.#failure) throw this.#failure.error;
      return call(this.#pacer);
    });
    this.#calls = result.then(
      () => undefined,
      (error: unknown) => {
        if (this.#failure) return;
        this.#failure = { error };
        this.#onFailure(error);
      },
    );
    return result;
  }

  /** A call nobody waits for (joining, an answer, a refund): its failure fails the next reservation. */
  #tell(call: (shared: SharedPacer) => Promise<unknown>): void {
    // The failure is kept by #call; this copy of it has nobody to tell.
    this.#call(call).catch(() => undefined);
  }
}
