import { describe, expect, it } from 'vitest';
import type { RawResponse, ServiceRequest } from '../../src/client/service-client.js';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { addressRows, limiterFor, runPipeline, upTo, type FakeWorld } from '../helpers/fake-pipeline.js';
import { FakeService, type FakeServiceOptions } from '../helpers/fake-service.js';

/**
 * Pacing against a service whose clock is not this machine's: its X-RateLimit-Reset and Date are
 * on its own clock. Everything here runs in virtual time; the service's clock is the run's, shifted.
 */

/** The world's clock shifted by `offsetMs` (ahead when positive): the service's clock. */
class ShiftedClock extends FakeClock {
  readonly #base: FakeClock;
  readonly #offsetMs: number;

  constructor(base: FakeClock, offsetMs: number) {
    super();
    this.#base = base;
    this.#offsetMs = offsetMs;
  }

  override now(): number {
    return this.#base.now() + this.#offsetMs;
  }

  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.#base.sleep(ms, signal);
  }
}

/** The fake service on its own clock, which it states in a Date header as HTTP servers do (whole seconds). */
class ServiceOnItsClock extends FakeService {
  readonly #clock: FakeClock;

  constructor(clock: FakeClock, options: FakeServiceOptions) {
    super(clock, options);
    this.#clock = clock;
  }

  override async send(request: ServiceRequest): Promise<RawResponse> {
    const response = await super.send(request);
    return { ...response, headers: { ...response.headers, date: new Date(this.#clock.now()).toUTCString() } };
  }
}

/** A plan's windows, and enough rows to spend five of the tightest. */
const PLANS = [
  { window: { limit: 20, periodSeconds: 1 }, rows: 100 },
  { window: { limit: 250, periodSeconds: 60 }, rows: 1_250 },
] as const;

type Plan = (typeof PLANS)[number];

/** The run starts 300 ms into a second of its own clock, as a run does at any moment. */
function skewedWorld(plan: Plan, offsetMs: number): FakeWorld {
  const clock = new FakeClock(FAKE_EPOCH + 300);
  const options: FakeServiceOptions = { windows: [plan.window], latencyMs: () => 30 };
  return { clock, service: new ServiceOnItsClock(new ShiftedClock(clock, offsetMs), options), written: [] };
}

/**
 * For each reset the run lived through, how long after it (on the service's clock) the next
 * request arrived: the time the window stood unused.
 */
function idleAfterResets(world: FakeWorld, plan: Plan): number[] {
  const periodMs = plan.window.periodSeconds * 1000;
  const arrivals = world.service.requests.map((request) => request.at);
  const resets = [];
  for (let reset = Math.ceil(arrivals[0]! / periodMs) * periodMs; reset <= arrivals.at(-1)!; reset += periodMs) resets.push(reset);
  return resets.map((reset) => arrivals.find((at) => at >= reset)! - reset);
}

async function run(world: FakeWorld, plan: Plan) {
  const limiter = limiterFor(world, { initialPerMinute: 100_000 });
  const outcome = await runPipeline(world, { rows: addressRows(plan.rows), batchSize: 10, limiter });
  return { ...outcome, limiter };
}

/** The skews a user would notice. 5 s behind against 1-s windows is not among them: its resets fall on ours. */
const SKEWS = [
  { name: '5 s ahead', offsetMs: 5_000, plan: PLANS[0] },
  { name: '5 s ahead', offsetMs: 5_000, plan: PLANS[1] },
  { name: '5 s behind', offsetMs: -5_000, plan: PLANS[1] },
];

describe('a service whose clock differs from this machine', () => {
  for (const { name, offsetMs, plan } of SKEWS) {
    const windowName = `${plan.window.limit}/${plan.window.periodSeconds}s`;
    it(`is paced at its windows when its clock is ${name} (${windowName}): no 429, no window left idle past its reset`, async () => {
      const world = skewedWorld(plan, offsetMs);
      const { stats } = await run(world, plan);
      expect(world.written.map((record) => record.row)).toEqual(upTo(plan.rows));
      expect(new Set(world.written.map((record) => record.status))).toEqual(new Set(['ok']));
      // Behind: waiting for its resets by our clock sends before them, into a spent window.
      expect(world.service.answered(429)).toEqual([]);
      expect(stats.rateLimitWaits).toBe(0);
      // Ahead: waiting for its resets by our clock leaves each window unused for 5 s. Its Date
      // has whole seconds, so its time is known to within one: at most that, and the margin.
      const idle = idleAfterResets(world, plan);
      expect(idle.length).toBeGreaterThanOrEqual(4);
      expect(Math.max(...idle)).toBeLessThan(1_000 + 300);
    });
  }

  it('on the same clock is not corrected: each window is used at its reset plus the margin, as before', async () => {
    const plan = PLANS[0];
    const world = skewedWorld(plan, 0);
    const { limiter } = await run(world, plan);
    const offset = limiter.serviceClock.offset!;
    expect(offset.lo).toBeLessThanOrEqual(0);
    expect(offset.hi).toBeGreaterThanOrEqual(0);
    expect(idleAfterResets(world, plan)).toEqual([50, 50, 50, 50]);
  });
});
