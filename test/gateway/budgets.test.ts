import { afterEach, describe, it } from 'vitest';
import type { OpenGateway } from '../../src/gateway/open-gateway.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { tempStorePath } from '../store/helpers/temp-store.js';
import { expectHeld, RACE_TIMEOUT_MS, raceBudget } from './exact-budgets.js';

/** Budgets held exactly by two gateways on one SQLite file (PostgreSQL: postgres.test.ts). */
describe('budgets on two gateways sharing one SQLite file', () => {
  const gateways: OpenGateway[] = [];
  let sandbox: RunningSandbox | undefined;
  afterEach(async () => {
    for (const gateway of gateways.splice(0)) await gateway.close(0);
    await sandbox?.close();
  });

  it(
    "bills a key's 1 USD budget at most 1 USD, 30 requests at once over both",
    async () => {
      const race = await raceBudget(tempStorePath(), false, gateways);
      sandbox = race.sandbox;
      expectHeld(race);
    },
    RACE_TIMEOUT_MS,
  );

  it(
    "bills the account's --max-cost-month of 1 USD at most 1 USD, 30 requests at once over both",
    async () => {
      const race = await raceBudget(tempStorePath(), true, gateways);
      sandbox = race.sandbox;
      expectHeld({ ...race, keySpent: 1 });
    },
    RACE_TIMEOUT_MS,
  );
});
