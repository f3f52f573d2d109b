import { describe, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { basic, VALMONTE } from './http.js';

/** `propdata sandbox` as a user starts it: the compiled bin in its own process (npm test builds dist/ first). */
const startForeground = (args: string[]): CliProcess => startCli(['sandbox', ...args]);

/** Resolves once the banner is out; fails the test with what was printed if the process ends first. */
async function banner(foreground: CliProcess): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (!foreground.stdout().includes('Ctrl-C')) {
    if (foreground.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no banner; stdout: ${foreground.stdout()} stderr: ${foreground.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return foreground.stdout();
}

const field = (text: string, label: string) => new RegExp(`^\\s*${label}:\\s+(\\S+)`, 'm').exec(text)?.[1];

const valueUrl = (base: string) => `${base}/v2/property/value?${new URLSearchParams(VALMONTE).toString()}`;

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const probe = await startSandbox();
  await probe.close();
  return Number(new URL(probe.url).port);
}

/**
 * The sandbox started on a port found free, and its banner: another port if that one was taken
 * between the probe and the start (other tests' servers and connections come and go meanwhile).
 */
async function onFreePort(args: string[]): Promise<{ port: number; foreground: CliProcess; printed: string }> {
  for (let tries = 1; ; tries += 1) {
    const port = await freePort();
    const foreground = startForeground(['--port', String(port), ...args]);
    try {
      return { port, foreground, printed: await banner(foreground) };
    } catch (error) {
      if (tries === 3 || !foreground.stderr().includes('is in use')) throw error;
    }
  }
}

// Each test is a process start (about half a second of Node and module loading): run them side by side.
describe.concurrent('propdata sandbox, in the foreground', () => {
  it('prints its URL and the credentials it accepts, answers with them, and exits 0 on SIGINT (Ctrl-C)', async ({ expect }) => {
    const foreground = startForeground(['--port', '0']);
    try {
      const printed = await banner(foreground);
      const [url, key, secret, testKey] = ['base URL', 'key', 'secret', 'test key'].map((label) => field(printed, label));
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect([key, secret, testKey]).toEqual(['sandbox', 'sandbox', 'test_sandbox']);
      expect(printed).toMatch(/synthetic/);

      const answer = await fetch(valueUrl(url!), { headers: { authorization: basic(`${key}:${secret}`) } });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as any)[0]['property/value'].result.value.price_mean).toBeGreaterThan(0);
      expect((await fetch(valueUrl(url!), { headers: { authorization: basic(`${testKey}:${secret}`) } })).status).toBe(200);
      expect((await fetch(valueUrl(url!))).status).toBe(401);

      foreground.child.kill('SIGINT');
      expect((await foreground.exited).code).toBe(0);
      expect(foreground.stdout()).toMatch(/propdata sandbox stopped\n$/);
      expect(foreground.stderr()).toBe('');
      await expect(fetch(valueUrl(url!))).rejects.toThrow();
    } finally {
      foreground.child.kill('SIGKILL');
    }
  });

  it('takes --port, the credentials and the rate limits, and exits 0 on SIGTERM', async ({ expect }) => {
    const { port, foreground, printed } = await onFreePort(['--sandbox-key', 'k', '--sandbox-secret', 's', '--rate-limit', '20/1,250/60']);
    try {
      expect(field(printed, 'base URL')).toBe(`http://127.0.0.1:${port}`);
      expect(field(printed, 'test key')).toBe('test_k');
      const answer = await fetch(valueUrl(`http://127.0.0.1:${port}`), { headers: { authorization: basic('k:s') } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('20,250');
      foreground.child.kill('SIGTERM');
      expect((await foreground.exited).code).toBe(0);
      expect(foreground.stdout()).toMatch(/propdata sandbox stopped\n$/);
    } finally {
      foreground.child.kill('SIGKILL');
    }
  });

  it('exits 2 with one line when its port is taken', async ({ expect }) => {
    const occupant = await startSandbox();
    try {
      const foreground = startForeground(['--port', new URL(occupant.url).port]);
      expect((await foreground.exited).code).toBe(2);
      expect(foreground.stderr().trim().split('\n')).toEqual([expect.stringMatching(/is in use; choose another --port/)]);
      expect(foreground.stdout()).toBe('');
    } finally {
      await occupant.close();
    }
  });
});
