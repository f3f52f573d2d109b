import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayStatus } from '../../src/gateway/status.js';
import { ADMIN_KEY, basic, gatewayPerTest } from './helpers.js';

const start = gatewayPerTest();
const json = { 'content-type': 'application/json' };
const post = (items: readonly object[]) => ({ method: 'POST', headers: json, body: JSON.stringify(items) });
const homes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ address: `${from + i} Harbor St`, zipcode: '21201' }));

/** Where the screenshot goes, for a person to look at after the run. */
export const SCREENSHOT = join(tmpdir(), 'propdata-status-page.png');

/**
 * Debian's chromium, headless, in a profile of its own that nothing outlives: no first-run pages,
 * no network of its own (updates, sync, QUIC), no GPU, no sandbox (CI runs as root).
 */
async function browser(credentials?: { username: string; password: string }): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'propdata-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1200, height: 1000 },
    ...(credentials ? { httpCredentials: credentials } : {}),
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

describe('the status page, in a real browser', () => {
  let opened: { close(): Promise<void> } | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });

  it(
    'shows the numbers the JSON status gives: windows, spend per key, the hit rate, clients and refusals',
    { timeout: 60_000 },
    async () => {
      const { request, gateway } = await start({
        keys: [{ name: 'alice', budgetMonth: 5 }, { name: 'bob' }],
        // A window of a day: it does not reset between the JSON's reading and the page's.
        sandbox: { rateLimits: [{ limit: 1_000, periodSeconds: 86_400 }] },
      });
      expect((await request('alice', '/v2/property/value', post(homes(1, 6)))).status).toBe(200);
      expect((await request('bob', '/v2/property/value', post(homes(4, 8)))).status).toBe(200);
      expect((await request('bob', '/v2/property/nothing_here?zipcode=21201')).status).toBe(404);
      expect((await request('alice', '/v2/property/value?address=1+Harbor+St&zipcode=21201', { secret: 'wrong' })).status).toBe(401);

      const session = await browser({ username: 'admin', password: ADMIN_KEY });
      opened = session;
      const page = await session.context.newPage();
      const elsewhere: string[] = [];
      const problems: string[] = [];
      page.on('request', (sent) => {
        if (!sent.url().startsWith(gateway.url)) elsewhere.push(sent.url());
      });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      await page.goto(`${gateway.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      const status = (await (
        await fetch(`${gateway.url}/__gateway/status`, { headers: { authorization: basic('admin', ADMIN_KEY) } })
      ).json()) as GatewayStatus;
      // The page reads the status every second: let it draw what the JSON just said.
      await page.waitForTimeout(1_200);

      const text = (selector: string) => page.locator(selector).first().textContent();
      const [window] = status.windows;
      // alice bought 6 items; bob 2 (his other 3 were alice's, from the store).
      expect(window).toMatchObject({ periodSeconds: 86_400, limit: 1_000, used: 8 });
      expect(await text('[data-window="86400"] .used')).toBe(String(window!.used));
      expect(await text('[data-window="86400"] .limit')).toBe('1000');
      for (const key of status.spend.keys) {
        expect(await text(`[data-key="${key.key}"] .figure .today`)).toBe(key.today.toFixed(2));
        expect(await text(`[data-key="${key.key}"] .figure .month`)).toBe(key.month.toFixed(2));
      }
      expect(status.spend.keys.map((key) => [key.key, key.month, key.budgetMonth])).toEqual([
        ['alice', 1.5, 5],
        ['bob', 0.5, null],
      ]);
      expect(await text('[data-key="alice"] .figure .budget')).toBe(' of 5.00');
      expect(status.store).toEqual({ items: 11, fromStore: 3, hitRate: 0.273 });
      expect(await text('#hit-rate')).toBe('27.3 %');
      expect(await page.locator('#clients tbody tr').allTextContents()).toEqual([
        expect.stringMatching(/^alice0[0-9]+6/),
        expect.stringMatching(/^bob0[0-9]+5/),
      ]);
      expect(status.refusals.map((refusal) => refusal.status)).toEqual([401, 404]);
      const refusals = await page.locator('#refusals tbody tr').allTextContents();
      expect(refusals).toEqual(status.refusals.map((refusal) => expect.stringContaining(`${refusal.status}${refusal.reason}`)));
      expect(await text('#account')).toContain(`${status.spend.accountMonth.toFixed(2)} USD`);

      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(20_000);
      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
    },
  );

  it('asks for the admin key, and shows nothing without it', { timeout: 60_000 }, async () => {
    const { gateway } = await start();
    const session = await browser();
    opened = session;
    const page = await session.context.newPage();
    // Asked for credentials it has none of, a headless browser gives up on the page.
    await expect(page.goto(`${gateway.url}/`)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
    const asked = await fetch(`${gateway.url}/`);
    expect(asked.status).toBe(401);
    expect(asked.headers.get('www-authenticate')).toBe('Basic realm="propdata gateway", charset="UTF-8"');
    expect(await asked.text()).toBe('');
    const status = await fetch(`${gateway.url}/__gateway/status`, {
      headers: { authorization: basic('alice', 'a client key is no admin key') },
    });
    expect(status.status).toBe(401);
  });
});
