import { expect } from 'vitest';
import type { OpenGateway } from '../../src/gateway/open-gateway.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { basic, gatewayFor, issueKeys } from './helpers.js';

/** One property/value item at 0.25 USD: a 1 USD budget buys four. */
const home = (i: number) => `/v2/property/value?address=${i}+Harbor+St&zipcode=21201`;

/** 30 logins at once each cost a scrypt (tens of ms, 4 threads): seconds on a loaded machine. */
export const RACE_TIMEOUT_MS = 60_000;

export interface BudgetRace {
  /** The 30 requests' statuses. */
  statuses: number[];
  /** What the sandbox charged, USD. */
  charged: number;
  /** What the store recorded for the key (usage --by key). */
  keySpent: number;
}

/**
 * 30 one-item requests at once, spread over two gateways on one store, from a key whose month
 * budget is 1 USD (or, with `accountBudget`, a key of no budget under the account's --max-cost-month
 * of 1 USD on both gateways): what the service charged.
 */
export async function raceBudget(
  store: string,
  accountBudget: boolean,
  closing: OpenGateway[],
): Promise<BudgetRace & { sandbox: RunningSandbox }> {
  const sandbox = await startSandbox({
    rateLimits: [{ limit: 1_000_000, periodSeconds: 60 }],
    credit: 1_000_000,
    strict: true,
    latencyMs: [20, 60],
  });
  const secrets = await issueKeys(store, [accountBudget ? { name: 'team' } : { name: 'team', budgetMonth: 1 }]);
  const options = accountBudget ? { maxCostMonth: 1 } : {};
  const gateways = [await gatewayFor(sandbox, store, options), await gatewayFor(sandbox, store, options)];
  closing.push(...gateways);
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      fetch(`${gateways[i % 2]!.url}${home(i + 1)}`, { headers: { authorization: basic('team', secrets.team!) } }),
    ),
  );
  const statuses = responses.map((response) => response.status);
  for (const response of responses) await response.arrayBuffer();
  const keySpent = (await gateways[0]!.store.keys.spentSince(0)).get('team') ?? 0;
  for (const gateway of gateways) await gateway.close(0);
  return { statuses, charged: sandbox.usage().charged, keySpent, sandbox };
}

/** What a user of the budget would check: never a cent past it, every refusal a 402, and the budget used whole. */
export function expectHeld(race: BudgetRace): void {
  expect(race.charged).toBeLessThanOrEqual(1);
  expect(race.statuses.filter((status) => status === 200)).toHaveLength(4);
  expect(race.statuses.filter((status) => status !== 200).every((status) => status === 402)).toBe(true);
  expect(race.charged).toBe(1);
  expect(race.keySpent).toBe(1);
}
