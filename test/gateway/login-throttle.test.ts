import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { GatewayRequestLog } from '../../src/gateway/gateway-parts.js';
import { LOGIN_THROTTLE, LoginThrottle } from '../../src/gateway/login-throttle.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { ADMIN_KEY, basic, gatewayPerTest } from './helpers.js';

const start = gatewayPerTest();
const PATH = '/v2/property/value?address=43+Valmonte+Plaza&zipcode=90274';

/** The median of `values`. */
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('failed logins', () => {
  it("hold an address's failures back longer after each one, up to a cap, and a quiet quarter-hour clears it", () => {
    const throttle = new LoginThrottle();
    const now = 1_000_000;
    const holds = [];
    for (let failure = 0; failure < 8; failure += 1) {
      holds.push(throttle.hold('10.0.0.7', now));
      throttle.release('10.0.0.7');
    }
    // A first failure (a typo) is answered at once.
    expect(holds).toEqual([0, 250, 500, 1_000, 2_000, 4_000, 8_000, 8_000]);
    // Another address is not held back; a quiet quarter-hour starts the address afresh.
    expect(throttle.hold('10.0.0.8', now)).toBe(0);
    expect(throttle.hold('10.0.0.7', now + LOGIN_THROTTLE.forgetAfterMs)).toBe(0);
    expect(throttle.addresses(now + LOGIN_THROTTLE.forgetAfterMs)).toBe(1);
  });

  it('hold a bounded number at once, from one address and from all, and remember a bounded number of addresses', () => {
    const throttle = new LoginThrottle({ ...LOGIN_THROTTLE, heldPerAddress: 2, held: 3, maxAddresses: 3 });
    expect([throttle.hold('a', 1), throttle.hold('a', 2), throttle.hold('a', 3)]).toEqual([0, 250, undefined]);
    expect([throttle.hold('b', 4), throttle.hold('c', 5)]).toEqual([0, undefined]);
    expect(throttle.held).toBe(3);
    throttle.release('a');
    expect(throttle.hold('c', 6)).toBe(0);
    for (const address of ['a', 'b', 'c']) throttle.release(address);
    expect(throttle.held).toBe(0);
    // The oldest failure is forgotten first once more addresses failed than it keeps.
    throttle.hold('d', 7);
    throttle.release('d');
    expect(throttle.addresses(8)).toBe(3);
    expect(throttle.hold('a', 9)).toBe(0);
  });

  it("slow a wrong secret's answers, never a right one's, on the same address; the status page lists them", async () => {
    const clock = new FakeClock();
    const { request, gateway } = await start({ gateway: { clock } });
    expect((await request('alice', PATH, { secret: 'guess-1' })).status).toBe(401);
    expect(clock.slept).not.toContain(250);
    expect((await request('alice', PATH, { secret: 'guess-2' })).status).toBe(401);
    expect(clock.slept).toContain(250);
    const sleeps = clock.slept.length;
    expect((await request('alice', PATH)).status).toBe(200);
    expect(clock.slept.slice(sleeps)).not.toContain(500);
    expect((await request('alice', PATH, { secret: 'guess-3' })).status).toBe(401);
    expect(clock.slept).toContain(500);
    // The status page's login is slowed the same way, and its refusals listed with the address.
    const wrongAdmin = await fetch(`${gateway.url}/__gateway/status`, { headers: { authorization: basic('admin', 'wrong') } });
    expect(wrongAdmin.status).toBe(401);
    const status = await fetch(`${gateway.url}/__gateway/status`, { headers: { authorization: basic('admin', ADMIN_KEY) } });
    const refusals = ((await status.json()) as { refusals: { address: string; reason: string }[] }).refusals;
    expect(refusals.map((refusal) => refusal.reason)).toEqual([
      'wrong admin key',
      'wrong key or secret',
      'wrong key or secret',
      'wrong key or secret',
    ]);
    expect(new Set(refusals.map((refusal) => refusal.address))).toEqual(new Set(['127.0.0.1']));
  });

  it('behind a proxy given to --trust-proxy: one bad client slows nobody else, and is named by its own address', async () => {
    const logged: GatewayRequestLog[] = [];
    const { request, gateway } = await start({
      gateway: { trustProxy: ['127.0.0.1'], onRequest: (entry) => logged.push(entry) },
    });
    const from = (address: string, secret?: string) =>
      request('alice', PATH, { headers: { 'x-forwarded-for': `${address}, 127.0.0.1` }, ...(secret ? { secret } : {}) });
    // The bad client fails enough to be held for seconds (250 ms doubled: 4 s on the sixth).
    for (let i = 0; i < 5; i += 1) await from('203.0.113.9', `guess-${i}`);
    const held = from('203.0.113.9', 'guess-again').then((response) => ({ status: response.status, at: performance.now() }));
    const others = [];
    for (let i = 0; i < 10; i += 1) {
      const sent = performance.now();
      const response = await from(`198.51.100.${i % 3}`);
      others.push({ status: response.status, ms: performance.now() - sent });
    }
    const answeredOthersAt = performance.now();
    expect(others.map((other) => other.status)).toEqual(Array(10).fill(200));
    // The bad client's answer is still held when every other client has been answered.
    expect((await held).status).toBe(401);
    expect((await held).at).toBeGreaterThan(answeredOthersAt);
    // Another client's first failure is answered at once: the bad one's failures are its own.
    const sent = performance.now();
    expect((await from('198.51.100.1', 'a typo')).status).toBe(401);
    expect(performance.now() - sent).toBeLessThan(1_000);
    expect(new Set(logged.filter((entry) => entry.status === 401).map((entry) => entry.address))).toEqual(
      new Set(['203.0.113.9', '198.51.100.1']),
    );
    // A client that is no trusted proxy (here, from 127.0.0.2) cannot name itself: its X-Forwarded-For is ignored.
    const spoofed = await new Promise<number | undefined>((resolve, reject) => {
      get(`${gateway.url}/healthz`, { localAddress: '127.0.0.2', headers: { 'x-forwarded-for': '192.0.2.1' } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      }).on('error', reject);
    });
    expect(spoofed).toBe(200);
    expect(logged.at(-1)).toMatchObject({ path: '/healthz', address: '127.0.0.2' });
  });

  it(
    "leave a right secret's latency alone while hundreds of wrong ones arrive at once, from one address or many",
    { timeout: 60_000 },
    async () => {
      // Failures held a second at most: the test need not wait out 8 s holds.
      const { request } = await start({ gateway: { trustProxy: ['127.0.0.1'], loginThrottle: { ...LOGIN_THROTTLE, maxDelayMs: 1_000 } } });
      const flood = (addressOf: (i: number) => string) =>
        Array.from({ length: 300 }, (_, i) =>
          request('alice', PATH, { secret: `guess-${i}`, headers: { 'x-forwarded-for': addressOf(i) } }).then(
            (response) => response.status,
          ),
        );
      for (const addressOf of [() => '203.0.113.9', (i: number) => `10.${i >> 8}.${i & 255}.1`]) {
        // Each address fails once first, so that the flood's failures are held back.
        const warmed = await Promise.all(flood(addressOf));
        expect(warmed.every((status) => status === 401 || status === 429)).toBe(true);
        const wrong = flood(addressOf);
        const latencies: number[] = [];
        for (let i = 0; i < 20; i += 1) {
          const sent = performance.now();
          expect((await request('alice', PATH)).status).toBe(200);
          latencies.push(performance.now() - sent);
        }
        expect(median(latencies)).toBeLessThan(50);
        const statuses = await Promise.all(wrong);
        // From one address, past the failures it may have held at once, the rest are refused 429 at once.
        expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
      }
    },
  );
});
