import type { JobView, PaceAsk, PaceDecision, PacedGrant, Pacing } from './pacing.js';
import type { ReportedWindow } from './rate-headers.js';
import type { SharedPacer, SharePolicy } from './shared-pacer.js';

/** Several requests' worth reserved by one grant and spent here (ThrottlePolicy.leaseRequests): its id in the pacer, what is left, until when. */
interface Lease {
  id: number;
  left: number;
  until: number;
}

/** How many lease ids are remembered for a refund that comes late (a grant of an ended lease refused). */
const LEASES_REMEMBERED = 64;

/**
 * Pacing through a shared pacer: every grant is also reserved in its state (in memory, or in a
 * store), which holds each job sharing it to its fair share of every window, and what the service
 * says of its windows is reported there. Where every window is wide (ThrottlePolicy.leasePart), a
 * grant reserves several requests of its size at once (a lease), and the next ones are granted
 * from it without asking the pacer; their answers are reported when they say something new (the
 * first, or a window that moved on). Calls go one at a time, in the order made: a store then
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
  #lease: Lease | undefined;
  /** The lease that ended since the last reservation, told with the next one (ShareRequest.ends). */
  #ended: { reservation: number; unused: number } | undefined;
  /** Ids of the latest leases: a grant of one is given back by ending its lease, not refunded whole. */
  readonly #leaseIds = new Set<number>();
  /** The last answer reported: the grant's id, and the windows it stated (their resets and limits). */
  #reported: { id: number | undefined; windows: string } | undefined;

  constructor(pacer: SharedPacer, policy: SharePolicy, onFailure: (error: unknown) => void) {
    this.#pacer = pacer;
    this.#policy = policy;
    this.#onFailure = onFailure;
    this.#tell((shared) => shared.join());
  }

  async reserve({ wanted, unit, demand }: PaceAsk, job: JobView): Promise<PaceDecision> {
    const leased = this.#fromLease(wanted, job.now);
    if (leased) return leased;
    const asked = wanted + this.#leaseExtra(wanted, job);
    const windows = job.windows.map((window) => ({ periodMs: window.periodMs, limit: window.limit, resetAt: window.budget?.resetAt }));
    const ends = this.#ended;
    this.#ended = undefined;
    const request = { wanted: asked, demand: Math.max(demand, asked), unit, windows, policy: this.#policy };
    const grant = await this.#call((shared) =>
      shared.reserve({ ...request, ...(asked > wanted ? { lease: true } : {}), ...(ends ? { ends } : {}) }),
    );
    if (!('id' in grant)) return { readyAt: grant.retryAt };
    const used = Math.min(grant.components, wanted);
    if (asked > wanted) this.#leased({ id: grant.id, left: grant.components - used, until: job.now + this.#policy.leaseMs });
    return { grant: used, shared: grant.id };
  }

  answered(grant: PacedGrant, reported: readonly ReportedWindow[]): void {
    const windows = reported.map((window) => `${window.periodSeconds}:${window.limit}:${window.resetAt}`).join();
    // Another answer under a lease already told, in the same windows: the pacer knows it is answered,
    // and the lease counts whole in them until it ends.
    if (grant.shared !== undefined && this.#reported?.id === grant.shared && this.#reported.windows === windows) return;
    this.#reported = { id: grant.shared, windows };
    // Even an answer without windows tells the others that the probe is answered.
    this.#tell((shared) => shared.report(grant.shared, reported));
  }

  refunded({ shared: id, components }: PacedGrant): void {
    if (id === undefined) return;
    if (!this.#leaseIds.has(id)) {
      this.#tell((shared) => shared.refund(id));
      return;
    }
    // A lease's grant refused (a 429: its window is spent) or never sent: the lease ends at once, and
    // that grant goes back with what it left.
    let left = 0;
    if (this.#lease?.id === id) [left, this.#lease] = [this.#lease.left, undefined];
    if (this.#ended?.reservation === id) [left, this.#ended] = [this.#ended.unused, undefined];
    this.#tell((shared) => shared.endLease(id, components + left));
  }

  /** `wanted` granted from the lease, when it holds that much still; a lease spent or run out ends, told with the next reservation. */
  #fromLease(wanted: number, now: number): PaceDecision | undefined {
    const lease = this.#lease;
    if (lease === undefined) return undefined;
    if (lease.left >= wanted && now < lease.until) {
      lease.left -= wanted;
      return { grant: wanted, shared: lease.id };
    }
    this.#lease = undefined;
    this.#ended = { reservation: lease.id, unused: lease.left };
    return undefined;
  }

  /** What a grant of `wanted` reserves beyond it for the requests after it: nothing unless every window is wide. */
  #leaseExtra(wanted: number, job: JobView): number {
    const { leaseRequests, leasePart } = this.#policy;
    const narrowest = Math.min(...job.windows.map((window) => window.limit));
    return wanted * leaseRequests <= narrowest * leasePart ? wanted * (leaseRequests - 1) : 0;
  }

  #leased(lease: Lease): void {
    this.#lease = lease;
    this.#leaseIds.add(lease.id);
    if (this.#leaseIds.size > LEASES_REMEMBERED) this.#leaseIds.delete(this.#leaseIds.values().next().value!);
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
