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

      // Opened as an operator pastes it: the admin key in the URL.
      const session = await browser();
      opened = session;
      const page = await session.context.newPage();
      const elsewhere: string[] = [];
      const problems: string[] = [];
      page.on('request', (sent) => {
        if (new URL(sent.url()).origin !== withKey.origin) elsewhere.push(sent.url());
      });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      const withKey = new URL(gateway.url);
      withKey.username = 'admin';
      withKey.password = ADMIN_KEY;
      await page.goto(withKey.href);
      await page.waitForSelector('body[data-ready="true"]');
      // Taken out of the address bar, and out of what the page fetches.
      expect(page.url()).toBe(`${gateway.url}/`);
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

  it('asks for the admin key when it has none, says so when it is wrong, and shows nothing without it', { timeout: 60_000 }, async () => {
    const { gateway } = await start();
    const session = await browser();
    opened = session;
    const page = await session.context.newPage();
    await page.goto(`${gateway.url}/`);
    await page.waitForSelector('#login:not([hidden])');
    expect(await page.locator('#state').textContent()).toBe('The status needs the admin key.');
    expect(await page.locator('#windows').textContent()).toBe('');
    await page.fill('#admin-key', 'not the admin key');
    await page.click('#login button');
    await page.locator('#state', { hasText: 'That is not the admin key: try again.' }).waitFor();
    expect(await page.locator('#login').isHidden()).toBe(false);
    await page.fill('#admin-key', ADMIN_KEY);
    await page.click('#login button');
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#login').isHidden()).toBe(true);
    expect(await page.locator('#state').textContent()).toMatch(/^0 active · /);

    // The page holds no figure; the JSON needs the key, and asks for it as HTTP asks anyone but the page.
    const asked = await fetch(`${gateway.url}/__gateway/status`);
    expect(asked.status).toBe(401);
    expect(asked.headers.get('www-authenticate')).toBe('Basic realm="propdata gateway", charset="UTF-8"');
    expect(await asked.text()).toBe('');
    const status = await fetch(`${gateway.url}/__gateway/status`, {
      headers: { authorization: basic('alice', 'a client key is no admin key') },
    });
    expect(status.status).toBe(401);
  });
});
