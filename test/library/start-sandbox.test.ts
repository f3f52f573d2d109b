import { describe, expect, it } from 'vitest';
import { startSandbox, UsageError, type Sandbox } from '../../src/library/index.js';

/** The rate-limit headers of one answer of `sandbox`. */
async function windowsOf(sandbox: Sandbox): Promise<{ period: string | null; limit: string | null }> {
  const authorization = `Basic ${Buffer.from(`${sandbox.key}:${sandbox.secret}`).toString('base64')}`;
  const response = await fetch(`${sandbox.url}/v2/property/value?address=43+Valmonte+Plaza&zipcode=90274`, { headers: { authorization } });
  await response.body?.cancel();
  return { period: response.headers.get('x-ratelimit-period'), limit: response.headers.get('x-ratelimit-limit') };
}

describe('startSandbox', () => {
  it("takes its windows in the CLI's --rate-limit notation, or as a list", async () => {
    for (const [rateLimit, expected] of [
      ['250/60', { period: '60', limit: '250' }],
      ['20/1,250/60', { period: '1,60', limit: '20,250' }],
      [[{ limit: 5, periodSeconds: 10 }], { period: '10', limit: '5' }],
    ] as const) {
      const sandbox = await startSandbox({ rateLimit });
      try {
        expect(await windowsOf(sandbox)).toEqual(expected);
      } finally {
        await sandbox.close();
      }
    }
  });

  it('refuses a notation --rate-limit refuses, with its message', async () => {
    const refused = startSandbox({ rateLimit: '250 a minute' });
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(/expected limit\/seconds pairs such as 20\/1,250\/60/);
  });
});
