import { CUT_SHORT, type Clock } from './clock.js';
import type { PaceDecision } from './pacing.js';
import { QuotaWaitError } from '../errors/index.js';

/** The longest timer Node can set (about 24.8 days): any wait is capped below it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface AcquireOptions {
  /** The components of one item: a grant may be smaller than asked, in whole units. */
  unit?: number;
  /** Lower goes first: the input row of the request's first item, so earlier rows are never overtaken. */
  priority?: number;
  /** Aborting rejects the wait with the signal's reason (a stopping run sends nothing new). */
  signal?: AbortSignal;
  /** The longest this request waits for a window (its job's --max-wait), when not the queue's own. */
  maxWaitMs?: number;
}

/** What the queue's head asks for: components still to grant, in whole units of `unit`. */
export interface Ask {
  components: number;
  unit: number;
}

/** What serves the queue: a decision for its head, and the permit a grant becomes. */
export interface Server<Permit> {
  /** What `head` gets now; `demand`: everything waiting, the head included. Throwing fails the head. */
  decide(head: Ask, demand: number): Promise<PaceDecision>;
  /** The permit for a grant made: the components are sent now. */
  grant(components: number, shared: number | undefined): Permit;
  /** A grant made for a request that stopped waiting meanwhile: it is never sent. */
  giveBack(components: number, shared: number | undefined): void;
}

interface Waiter<Permit> extends Ask {
  priority: number;
  /** Stay queued, at the same place, until every component is granted (grants()); else leave after one. */
  untilWhole: boolean;
  deliver: (permit: Permit) => void;
  fail: (error: unknown) => void;
  signal: AbortSignal | undefined;
  maxWaitMs: number;
  onAbort: () => void;
}

/**
 * Requests waiting for a grant, served in priority order (the earliest input row first, then first
 * come) by one pump: it asks its server about the head, hands a grant over at once, and otherwise
 * sleeps until the time the decision names, or until something changes (changed()): a new head,
 * an answer, a pause. A wait longer than maxWaitMs fails the head instead (QuotaWaitError).
 */
export class GrantQueue<Permit extends { components: number }> {
  readonly #server: Server<Permit>;
  readonly #clock: Clock;
  readonly #maxWaitMs: number;
  /** Lowest priority first (then first come). */
  #waiters: Waiter<Permit>[] = [];
  #pumping = false;
  /** Aborted to cut the pump's current wait short: the head of the queue or what it depends on changed. */
  #wake: AbortController | undefined;
  #waitedMs = 0;
  #waitingUntil = 0;

  constructor(server: Server<Permit>, clock: Clock, maxWaitMs: number) {
    this.#server = server;
    this.#clock = clock;
    this.#maxWaitMs = maxWaitMs;
  }

  /** Total time spent waiting, in ms. */
  get waitedMs(): number {
    return this.#waitedMs;
  }

  /** Epoch ms until which the head is waiting, or 0 when it is not. */
  get waitingUntil(): number {
    return this.#waitingUntil > this.#clock.now() ? this.#waitingUntil : 0;
  }

  /** Something a waiting grant depends on changed: look again now rather than at the end of the wait. */
  changed(): void {
    // Called at every answer: a reason of our own spares a DOMException each time.
    this.#wake?.abort(CUT_SHORT);
  }

  /** One permit, of at most `components` (at least a unit). */
  acquire(components: number, options: AcquireOptions = {}): Promise<Permit> {
    return new Promise<Permit>((resolve, reject) => this.#enqueue(components, options, false, resolve, reject));
  }

  /**
   * All of `components`, granted in parts. The request keeps its place in the queue between parts:
   * the rest of a batch whose first part went out is served before any later row, without having
   * to ask again.
   */
  async *grants(components: number, options: AcquireOptions = {}): AsyncGenerator<Permit> {
    const ready: Permit[] = [];
    let failure: { error: unknown } | undefined;
    let notify: (() => void) | undefined;
    const wakeUp = () => {
      notify?.();
      notify = undefined;
    };
    this.#enqueue(
      components,
      options,
      true,
      (permit) => {
        ready.push(permit);
        wakeUp();
      },
      (error) => {
        failure = { error };
        wakeUp();
      },
    );
    for (let granted = 0; granted < components;) {
      if (ready.length === 0 && !failure) await new Promise<void>((resolve) => (notify = resolve));
      const permit = ready.shift();
      if (permit) {
        granted += permit.components;
        yield permit;
      } else if (failure) {
        throw failure.error;
      }
    }
  }

  #enqueue(
    components: number,
    options: AcquireOptions,
    untilWhole: boolean,
    deliver: (permit: Permit) => void,
    fail: (error: unknown) => void,
  ): void {
    const { signal } = options;
    if (signal?.aborted) {
      fail(signal.reason);
      return;
    }
    const waiter: Waiter<Permit> = {
      components,
      unit: options.unit ?? components,
      priority: options.priority ?? 0,
      untilWhole,
      deliver,
      fail,
      signal,
      maxWaitMs: options.maxWaitMs ?? this.#maxWaitMs,
      onAbort: () => {
        this.#remove(waiter);
        fail(signal!.reason);
        this.changed();
      },
    };
    signal?.addEventListener('abort', waiter.onAbort, { once: true });
    const at = this.#waiters.findIndex((other) => other.priority > waiter.priority);
    if (at < 0) this.#waiters.push(waiter);
    else this.#waiters.splice(at, 0, waiter);
    if (at === 0) this.changed();
    void this.#pump();
  }

  #remove(waiter: Waiter<Permit>): void {
    const at = this.#waiters.indexOf(waiter);
    if (at >= 0) this.#waiters.splice(at, 1);
    waiter.signal?.removeEventListener('abort', waiter.onAbort);
  }

  /** Serves the queue's head whenever its server grants; one pump runs at a time. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#waiters.length > 0) {
        const head = this.#waiters[0]!;
        // Set before deciding: a change while the server decides cuts the wait that follows short.
        const wake = new AbortController();
        this.#wake = wake;
        let decision: PaceDecision;
        try {
          const demand = this.#waiters.reduce((sum, waiter) => sum + waiter.components, 0);
          decision = await this.#server.decide(head, demand);
        } catch (error) {
          this.#remove(head);
          head.fail(error);
          continue;
        }
        if ('grant' in decision) {
          if (!this.#waiters.includes(head)) {
            // It stopped waiting (its run is stopping) while the server decided: the grant goes back.
            this.#server.giveBack(decision.grant, decision.shared);
            continue;
          }
          // A grant decided before something changed is decided again; one a shared pacer made is reserved there.
          if (decision.shared === undefined && wake.signal.aborted) continue;
          head.components -= decision.grant;
          if (!head.untilWhole || head.components <= 0) this.#remove(head);
          this.#waitingUntil = 0;
          head.deliver(this.#server.grant(decision.grant, decision.shared));
          continue;
        }
        if (wake.signal.aborted) continue;
        if ('afterAnswer' in decision) {
          await new Promise((resolve) => wake.signal.addEventListener('abort', resolve, { once: true }));
          continue;
        }
        const started = this.#clock.now();
        const wait = decision.readyAt - started;
        if (wait > head.maxWaitMs) {
          this.#remove(head);
          head.fail(new QuotaWaitError(decision.resetAt ?? decision.readyAt, head.maxWaitMs));
          continue;
        }
        this.#waitingUntil = decision.readyAt;
        await this.#clock.sleep(Math.min(wait, MAX_TIMER_MS), wake.signal).catch(() => undefined);
        this.#waitedMs += Math.max(0, this.#clock.now() - started);
      }
    } finally {
      this.#pumping = false;
      this.#waitingUntil = 0;
      this.#wake = undefined;
    }
  }
}
