import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthError, BudgetReachedError, ConfigError, createClient, QuotaWaitError, type Client } from '../../src/library/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { envFor } from '../helpers/sandbox-per-test.js';

const VALMONTE = { address: '43 Valmonte Plaza', zipcode: '90274' };
const homes = (count: number) => Array.from({ length: count }, (_, i) => ({ address: `${i + 1} Main St`, zipcode: '90274' }));

let sandbox: RunningSandbox | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await sandbox?.close();
  sandbox = undefined;
});

function clientOf(options: Parameters<typeof createClient>[0]): Client {
  const client = createClient({ store: false, ...options });
  clients.push(client);
  return client;
}

async function drain(client: Client, count: number): Promise<unknown> {
  try {
    for await (const record of client.property.value.batch(homes(count))) expect(record.row).toBeGreaterThan(0);
  } catch (error) {
    return error;
  }
  return undefined;
}

/** No flag of the CLI in a library error: `--max-wait`, `--key`, `propdata config list`. */
const noCliWords = (error: unknown) => {
  expect((error as Error).message).not.toMatch(/--[a-z]|config list/);
};

describe("the library's errors name the client's options, not the CLI's flags", () => {
  it('a wait past maxWait, a cap, missing credentials and a refused secret', async () => {
    sandbox = await startSandbox({ rateLimits: [{ limit: 5, periodSeconds: 3_600 }] });
    const waited = await drain(clientOf({ env: envFor(sandbox), maxWait: 1_000, batchSize: 5 }), 20);
    expect(waited).toBeInstanceOf(QuotaWaitError);
    expect((waited as Error).message).toMatch(/later than maxWait \(1 s\) allows/);
    noCliWords(waited);

    const capped = await drain(clientOf({ env: envFor(sandbox), maxCost: 0.1 }), 2);
    expect(capped).toBeInstanceOf(BudgetReachedError);
    expect((capped as Error).message).toMatch(/^maxCost 0.1 USD is less than one item's list price/);
    noCliWords(capped);

    const home = mkdtempSync(join(tmpdir(), 'propdata-terms-'));
    const missing = await clientOf({ env: { PROPDATA_HOME: home, PROPDATA_CONFIG_DIR: home } })
      .property.value(VALMONTE)
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ConfigError);
    expect((missing as Error).message).toMatch(/pass key\/secret\/baseUrl/);
    expect((missing as Error).message).toMatch(/startSandbox\(\)/);
    noCliWords(missing);

    const refused = await clientOf({ env: envFor(sandbox), secret: 'not-the-secret' })
      .property.value(VALMONTE)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthError);
    expect((refused as Error).message).toMatch(/the client's key and secret options/);
    noCliWords(refused);
  });
});
