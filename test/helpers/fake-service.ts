import type { RawResponse, Service, ServiceRequest } from '../../src/client/service-client.js';
import { NetworkError } from '../../src/errors/index.js';
import { RateWindows } from '../../src/sandbox/rate-windows.js';
import type { FakeClock } from './fake-clock.js';
import { lowerCaseHeaders, type Limit } from './strict-service.js';

/** One fixed window, the sandbox's own (src/sandbox/rate-windows.ts): at most `limit` components per `periodSeconds`. */
export type FakeWindow = Limit;

/** A request as the fake service saw it. */
export interface SeenRequest {
  /** 0-based, in order of arrival. */
  index: number;
  /** Virtual time it arrived (and was counted and charged). */
  at: number;
  path: string;
  query: Record<string, string | number>;
  items: Record<string, unknown>[];
  /** The input row of each item: the number its address starts with (`12 Main St` is row 12). */
  rows: number[];
  components: number;
  /** What the client got, once it got it: an HTTP status, or `dropped` for a lost connection. */
  outcome?: number | 'dropped';
  /** Virtual time the client got the answer. */
  answeredAt?: number;
}

/** What a script makes of a request instead of the service's usual answer. */
export type FakeReply =
  | { status: number; body?: unknown; headers?: Record<string, string>; latencyMs?: number }
  /** The connection drops; `sent`: after the request went out whole (the service may have charged it). */
  | { drop: true; sent?: boolean; latencyMs?: number };

export interface FakeServiceOptions {
  /** Sections of each chunk, all api_code 0. */
  sections?: readonly string[];
  /** Windows counted in components; a request that does not fit gets a 429. None: no rate-limit headers at all. */
  windows?: readonly FakeWindow[];
  /** Components another job has already used in the windows' current period when the service starts. */
  spent?: number;
  /** Virtual ms from arrival to answer (0: the next turn of the event loop). */
  latencyMs?: (request: SeenRequest) => number;
  /** Called on arrival: a reply to send instead of the usual answer, or undefined for the usual one. */
  script?: (request: SeenRequest) => FakeReply | undefined;
}

/** The row an item stands for: the number its address starts with. */
export const rowOfItem = (item: Record<string, unknown>): number => Number.parseInt(String(item.address), 10);

/**
 * The service in virtual time: fixed windows with X-RateLimit-* headers (a 429 for a request that
 * does not fit), a charge for every item answered, and a script for the failures a test wants. Each
 * chunk's `address_info.address_full` is the item's address, so a test can see that every row got
 * its own answer. Answers come after `latencyMs` on the clock.
 */
export class FakeService implements Service {
  readonly #clock: FakeClock;
  readonly #options: FakeServiceOptions;
  readonly #windows: RateWindows;
  readonly requests: SeenRequest[] = [];
  /** Rows charged, in the order the service charged them. */
  readonly charged: number[] = [];
  /** Items that arrived and whose answer has not reached the client yet. */
  inFlightItems = 0;

  constructor(clock: FakeClock, options: FakeServiceOptions = {}) {
    this.#clock = clock;
    this.#options = options;
    this.#windows = new RateWindows(options.windows ?? [], () => clock.now());
    // Another job's use of the windows' current period.
    if (options.spent) this.#windows.take(options.spent);
  }

  /** Requests answered with `status`. */
  answered(status: number): SeenRequest[] {
    return this.requests.filter((request) => request.outcome === status);
  }

  async send(request: ServiceRequest): Promise<RawResponse> {
    const items = [...(request.items ?? [])];
    const sections = this.#options.sections ?? ['property/value'];
    const seen: SeenRequest = {
      index: this.requests.length,
      at: this.#clock.now(),
      path: request.path,
      query: { ...request.query },
      items,
      rows: items.map(rowOfItem),
      components: items.length * sections.length,
    };
    this.requests.push(seen);
    this.inFlightItems += items.length;
    const reply = this.#options.script?.(seen) ?? this.#usual(seen, sections);
    const latency = reply.latencyMs ?? this.#options.latencyMs?.(seen) ?? 0;
    try {
      await this.#clock.sleep(latency);
    } finally {
      this.inFlightItems -= items.length;
    }
    seen.answeredAt = this.#clock.now();
    if ('drop' in reply) {
      seen.outcome = 'dropped';
      throw new NetworkError('connection dropped by the server', { mayHaveBeenCharged: reply.sent ?? false });
    }
    seen.outcome = reply.status;
    const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    const headers = Object.fromEntries(
      Object.entries({ ...this.rateHeaders(), ...reply.headers }).map(([name, value]) => [name.toLowerCase(), value]),
    );
    return { status: reply.status, headers, body, elapsedMs: latency, redact: (text) => text };
  }

  /** The X-RateLimit-* headers as of now; none without windows. */
  rateHeaders(): Record<string, string> {
    return lowerCaseHeaders(this.#windows.headers());
  }

  /** The usual answer: a 429 when a window has no room, else a chunk per item, charged. */
  #usual(seen: SeenRequest, sections: readonly string[]): FakeReply {
    if (!this.#windows.fits(seen.components)) {
      return { status: 429, body: { code: 429, message: 'Rate limit exceeded: wait until X-RateLimit-Reset' } };
    }
    this.#windows.take(seen.components);
    this.charged.push(...seen.rows);
    return { status: 200, body: seen.items.map((item) => answerFor(item, sections)) };
  }
}

/** A chunk for `item`: its address echoed in address_info, every section api_code 0. */
export function answerFor(item: Record<string, unknown>, sections: readonly string[]): Record<string, unknown> {
  return {
    address_info: { address_full: String(item.address), status: { match: true } },
    ...(item.meta === undefined ? {} : { meta: item.meta }),
    ...Object.fromEntries(
      sections.map((name) => [name, { api_code: 0, api_code_description: 'ok', result: { value: { price_mean: 1 } } }]),
    ),
  };
}

/** A seeded generator of numbers in [0, 1) (mulberry32): random latencies and faults that repeat run after run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
