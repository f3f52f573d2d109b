import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/index.js';
import { SANDBOX_OPTIONS, parseLatency, parseRateLimits, sandboxOptionsFrom, startSandbox } from '../../src/sandbox/index.js';

describe('sandbox options', () => {
  it('parses rate-limit windows and off', () => {
    expect(parseRateLimits('20/1,250/60')).toEqual([
      { limit: 20, periodSeconds: 1 },
      { limit: 250, periodSeconds: 60 },
    ]);
    expect(parseRateLimits('off')).toEqual([]);
    expect(parseRateLimits('0')).toEqual([]);
    for (const bad of ['250', '20/0', 'x/1', '']) expect(() => parseRateLimits(bad)).toThrow(UsageError);
  });

  it('parses latency as a fixed delay or a range', () => {
    expect(parseLatency('200')).toEqual([200, 200]);
    expect(parseLatency('50-400')).toEqual([50, 400]);
    for (const bad of ['400-50', 'slow', '-5']) expect(() => parseLatency(bad)).toThrow(UsageError);
  });

  it('declares the documented flags', () => {
    expect(SANDBOX_OPTIONS.map((option) => option.flags.split(' ')[0])).toEqual([
      '--port',
      '--host',
      '--sandbox-key',
      '--sandbox-secret',
      '--rate-limit',
      '--credit',
      '--price',
      '--fail-rate',
      '--reset-rate',
      '--latency',
      '--strict',
      '--spurious-429-rate',
    ]);
    const price = SANDBOX_OPTIONS.find((option) => option.flags.startsWith('--price'))!.parse!;
    expect(price('property/school=0.5', price('property/value=1'))).toEqual({ 'property/value': 1, 'property/school': 0.5 });
    expect(() => price('property/nothing=1')).toThrow(UsageError);
    expect(() => price('property/value')).toThrow(UsageError);
    const failRate = SANDBOX_OPTIONS.find((option) => option.flags.startsWith('--fail-rate'))!.parse!;
    expect(() => failRate('1.5')).toThrow(UsageError);
  });

  it("maps commander's parsed values, raw text included, to SandboxOptions", () => {
    expect(
      sandboxOptionsFrom({
        port: '8787',
        host: '0.0.0.0',
        sandboxKey: 'k',
        sandboxSecret: 's',
        rateLimit: 'off',
        credit: 5,
        price: { 'property/value': 1 },
        failRate: 0.1,
        resetRate: '0.2',
        latency: '10-20',
        spurious429Rate: 0.05,
      }),
    ).toEqual({
      port: 8787,
      host: '0.0.0.0',
      key: 'k',
      secret: 's',
      rateLimits: [],
      credit: 5,
      prices: { 'property/value': 1 },
      failRate: 0.1,
      resetRate: 0.2,
      latencyMs: [10, 20],
      spurious429Rate: 0.05,
    });
    expect(sandboxOptionsFrom({})).toEqual({});
    expect(() => sandboxOptionsFrom({ credit: '-1' })).toThrow(UsageError);
  });

  it('rejects bad values given programmatically', async () => {
    await expect(startSandbox({ failRate: 2 })).rejects.toThrow(UsageError);
    await expect(startSandbox({ prices: { 'nope/x': 1 } })).rejects.toThrow(UsageError);
  });
});
