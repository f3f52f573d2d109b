import { describe, expect, it } from 'vitest';
import { LOGIN_THROTTLE, LoginThrottle } from '../../src/gateway/login-throttle.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { ADMIN_KEY, basic, gatewayPerTest } from './helpers.js';

const start = gatewayPerTest();

describe('failed logins', () => {
  it('hold an address back longer after each failure, up to a cap, and a success or a quiet quarter-hour clears it', () => {
    const throttle = new LoginThrottle();
    const now = 1_000_000;
    expect(throttle.delayMs('10.0.0.7', now)).toBe(0);
    const delays = [];
    for (let failure = 0; failure < 8; failure += 1) {
      throttle.failed('10.0.0.7', now);
      delays.push(throttle.delayMs('10.0.0.7', now));
    }
    expect(delays).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    // The wait counts from the last failure; another address is not held back.
    expect(throttle.delayMs('10.0.0.7', now + 3_000)).toBe(5_000);
    expect(throttle.delayMs('10.0.0.8', now)).toBe(0);
    expect(throttle.delayMs('10.0.0.7', now + LOGIN_THROTTLE.forgetAfterMs)).toBe(0);
    throttle.failed('10.0.0.9', now);
    throttle.succeeded('10.0.0.9');
    expect(throttle.delayMs('10.0.0.9', now)).toBe(0);
  });

  it('remember a bounded number of addresses, forgetting the oldest failure first', () => {
    const throttle = new LoginThrottle({ ...LOGIN_THROTTLE, maxAddresses: 3 });
    for (const [i, address] of ['a', 'b', 'c', 'd'].entries()) throttle.failed(address, 1_000 + i);
    expect(throttle.addresses).toBe(3);
    expect(throttle.delayMs('a', 1_010)).toBe(0);
    expect(throttle.delayMs('d', 1_010)).toBeGreaterThan(0);
  });

  it("slow the gateway's next answers to that address, not its first, and a right key is let in after the wait", async () => {
    const clock = new FakeClock();
    const { request, gateway } = await start({ gateway: { clock } });
    const path = '/v2/property/value?address=43+Valmonte+Plaza&zipcode=90274';
    expect((await request('alice', path, { secret: 'guess-1' })).status).toBe(401);
    expect(clock.slept).not.toContain(250);
    expect((await request('alice', path, { secret: 'guess-2' })).status).toBe(401);
    expect(clock.slept).toContain(250);
    expect((await request('alice', path)).status).toBe(200);
    expect(clock.slept).toContain(500);
    // The status page's login is slowed the same way, and its refusals listed.
    expect((await fetch(`${gateway.url}/`, { headers: { authorization: basic('admin', 'wrong') } })).status).toBe(401);
    const status = await fetch(`${gateway.url}/__gateway/status`, { headers: { authorization: basic('admin', ADMIN_KEY) } });
    const refusals = ((await status.json()) as { refusals: { status: number; reason: string }[] }).refusals;
    expect(refusals.map((refusal) => refusal.reason)).toEqual(['wrong admin key', 'wrong key or secret', 'wrong key or secret']);
  });
});
