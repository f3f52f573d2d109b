import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { call, VALMONTE } from './http.js';

/** Outcomes of `count` GETs: the status, or 'reset' for a dropped connection. */
async function outcomes(options: Parameters<typeof startSandbox>[0], count: number) {
  const sandbox = await startSandbox(options);
  try {
    const seen: Array<number | 'reset'> = [];
    for (let index = 0; index < count; index += 1) {
      try {
        const reply = await call(sandbox, '/v2/property/value', { query: VALMONTE });
        seen.push(reply.status);
        if (reply.status >= 500) {
          expect(reply.headers.get('content-type')).toMatch(/text\/html/);
          expect(reply.text).toMatch(/<html>/);
        }
        if (reply.status === 429) {
          const reset = Number(reply.headers.get('x-ratelimit-reset'));
          expect(reset - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(2);
          expect(reply.headers.get('x-ratelimit-remaining')).not.toBe('0');
        }
      } catch {
        seen.push('reset');
      }
    }
    return { seen, usage: sandbox.usage() };
  } finally {
    await sandbox.close();
  }
}

describe('fault injection', () => {
  it('produces every fault kind at the configured rates, charges none of them, and repeats with the seed', async () => {
    const options = { failRate: 0.2, resetRate: 0.2, spurious429Rate: 0.2, seed: 'faults' };
    const { seen, usage } = await outcomes(options, 60);
    expect(seen.filter((status) => status === 'reset').length).toBeGreaterThan(3);
    expect(seen.filter((status) => status === 429).length).toBeGreaterThan(3);
    expect(new Set(seen.filter((status) => typeof status === 'number' && status >= 500))).toEqual(new Set([500, 502, 503]));
    const ok = seen.filter((status) => status === 200).length;
    expect(ok).toBeGreaterThan(10);
    expect(usage).toMatchObject({ requests: ok, components: ok });
    expect(usage.charged).toBeCloseTo(ok * 0.25, 6);
    expect((await outcomes(options, 60)).seen).toEqual(seen);
  });

  it('waits the configured latency before answering', async () => {
    // The sandbox's time is a virtual clock: the answer comes once it has moved on by the latency.
    const clock = new FakeClock();
    const sandbox = await startSandbox({ latencyMs: [120, 160], now: () => clock.now(), sleep: (ms) => clock.sleep(ms) });
    try {
      await call(sandbox, '/v2/property/value', { query: VALMONTE });
      expect(clock.slept).toHaveLength(1);
      expect(clock.elapsed()).toBeCloseTo(clock.slept[0]!, 3);
      expect(clock.elapsed()).toBeGreaterThanOrEqual(120);
      expect(clock.elapsed()).toBeLessThanOrEqual(160);
    } finally {
      await sandbox.close();
    }
  });
});
