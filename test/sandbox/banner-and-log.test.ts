import { describe, expect, it } from 'vitest';
import { describeSandbox, resolveOptions } from '../../src/sandbox/options.js';
import { startSandbox } from '../../src/sandbox/server.js';
import type { SandboxRequestLog } from '../../src/sandbox/options.js';
import { runMain } from '../helpers/run-main.js';

describe('the sandbox says what it does', () => {
  it('describes its windows, credit and faults', () => {
    expect(describeSandbox(resolveOptions({}))).toEqual([
      'rate limit: 250 components/60s',
      'credit:     200.00 USD at list price',
      'faults:     none',
    ]);
    const tuned = describeSandbox(resolveOptions({ rateLimits: [], credit: 5, failRate: 0.1, latencyMs: [50, 400] }));
    expect(tuned).toEqual(['rate limit: off', 'credit:     5.00 USD at list price', 'faults:     10% 5xx, latency 50-400 ms']);
  });

  it('reports each request, and gives a URL propdata accepts when it listens on every interface', async () => {
    const seen: SandboxRequestLog[] = [];
    const sandbox = await startSandbox({ host: '0.0.0.0', onRequest: (entry) => seen.push(entry) });
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${sandbox.url}/v2/property/value?address=1+Main+St&zipcode=21204`, {
        headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}` },
      });
      await response.text();
      expect(seen).toEqual([expect.objectContaining({ method: 'GET', path: '/v2/property/value', status: response.status })]);
    } finally {
      await sandbox.close();
    }
  });

  it('--sandbox takes --sandbox-credit and --sandbox-rate-limit, and its banner names them', async () => {
    const result = await runMain([
      'property',
      'value',
      '--address',
      '43 Valmonte Plaza',
      '--zipcode',
      '90274',
      '--sandbox',
      '--sandbox-credit',
      '1000',
      '--sandbox-rate-limit',
      '500/60',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/rate limit 500 components\/60s; credit 1000\.00 USD/);
    const refused = await runMain(['property', 'value', '--address', 'x', '--zipcode', '90274', '--sandbox', '--sandbox-credit', 'lots']);
    expect(refused.code).toBe(2);
  });

  it('propdata sandbox prints its settings and a line per request, none with --quiet', async () => {
    for (const quiet of [false, true]) {
      const stop = new AbortController();
      // Stopped (as by Ctrl-C) once its banner is out, however long starting took.
      const result = await runMain(['sandbox', '--credit', '50', ...(quiet ? ['--quiet'] : [])], {
        signal: stop.signal,
        watch: ({ stdout }) => {
          if (stdout.includes('Stop it with Ctrl-C.')) stop.abort();
        },
      });
      expect(result.stdout).toMatch(/Stop it with Ctrl-C\.\npropdata sandbox stopped\n$/);
      expect(result.stdout).toContain('credit:     50.00 USD');
      expect(result.stdout).toContain('rate limit: 250 components/60s');
      expect(result.stdout.includes('Each request is logged')).toBe(!quiet);
    }
  });
});
