import { itemCostOf, sectionPricesOf } from '../pipeline/pricing.js';
import type { ClientKey } from '../store/key-store.js';
import type { ClientRequest } from './client-request.js';
import type { GatewayParts } from './gateway-parts.js';
import type { CallBudgets } from './spend-book.js';
import type { UpstreamCall, UpstreamResult } from './upstream.js';

/** The budget that refused a call: the key's or the account's, and what it had spent (and held) this month. */
export interface BudgetRefusal {
  whose: 'key' | 'account';
  spent: number;
}

/** A call's result, and the budget that refused it, if one did (the result's unsent items then get a 402). */
export interface BudgetedResult {
  result: UpstreamResult;
  refusal?: BudgetRefusal;
}

/** What a call that bought nothing and took nothing from the store spent. */
const NOTHING: UpstreamResult['spend'] = { requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 };

type CallLimits = Pick<UpstreamCall, 'maxAgeMs' | 'maxWaitMs' | 'signal'>;

/** The budgets a key's calls are bound by; undefined when neither it nor the account has one. */
function budgetsOf(parts: GatewayParts, key: ClientKey): CallBudgets | undefined {
  const accountBudget = parts.settings.maxCostMonth;
  if (key.budgetMonth === undefined && accountBudget === undefined) return undefined;
  return {
    ...(key.budgetMonth !== undefined ? { keyBudget: key.budgetMonth } : {}),
    ...(accountBudget !== undefined ? { accountBudget } : {}),
  };
}

/** The 402's message: the budget reached, named, with what is spent. */
export function budgetMessage(parts: GatewayParts, key: ClientKey, refusal: BudgetRefusal): string {
  const usd = (n: number) => n.toFixed(2);
  if (refusal.whose === 'key') {
    return `key "${key.name}" would pass its budget of ${usd(key.budgetMonth!)} USD this month (${usd(refusal.spent)} USD spent or held at list price): nothing was bought; what the store holds is still answered; ask the gateway's operator for more`;
  }
  return `the account's budget of ${usd(parts.settings.maxCostMonth!)} USD this month (--max-cost-month) would be passed (${usd(refusal.spent)} USD spent or held at list price): nothing was bought; what the store holds is still answered`;
}

/**
 * A call through the upstream within the key's and the account's month budgets, exactly, on any
 * number of gateways: what the call may buy at list price (every item whole) is held in the store
 * before anything is bought (KeyStore.reserve), and settled as the call ends. When the whole does
 * not fit, the store answers what it holds, buying nothing, and the rest must fit: held, it is
 * bought; else the request gets its 402 and nothing was bought. A request the store answers whole
 * is answered whatever the budgets.
 */
export async function fetchWithinBudget(
  parts: GatewayParts,
  key: ClientKey,
  asked: ClientRequest,
  limits: CallLimits,
): Promise<BudgetedResult> {
  const { book, activity, settings } = parts;
  const endpoint = asked.sections.map((section) => section.name).join(',');
  const call = async (maxCost?: number) => {
    const fetched = await settings.upstream.fetch({
      target: asked.target,
      items: asked.items,
      params: {},
      client: key.name,
      ...limits,
      ...(maxCost !== undefined ? { maxCost } : {}),
    });
    parts.metrics.called(key.name, fetched.spend);
    return fetched;
  };
  const budgets = budgetsOf(parts, key);
  const price = itemCostOf(asked.target, sectionPricesOf(asked.target)).price;
  activity.begin(key.name, settings.clock.now());
  let result: UpstreamResult | undefined;
  try {
    if (budgets === undefined || price === 0) {
      result = await call();
      book.add(key.name, endpoint, result.spend);
      return { result };
    }
    // A store that cannot hold is no budget reached: the call goes unsent, answered as the store's failure (503).
    const hold = (usd: number) => book.hold(key.name, usd, budgets).catch((error: unknown) => ({ failed: error }));
    const unsentFor = (stop: unknown): BudgetedResult => ({
      result: { answers: asked.items.map(() => ({ kind: 'unsent' as const })), stop, spend: NOTHING },
    });
    let usd = asked.items.length * price;
    let held = await hold(usd);
    if ('failed' in held) return unsentFor(held.failed);
    if (!('id' in held)) {
      // The whole does not fit: what the store holds is answered, nothing bought, and the rest must fit.
      result = await call(0);
      book.add(key.name, endpoint, result.spend);
      const unsent = result.answers.filter((answer) => answer.kind === 'unsent').length;
      if (unsent === 0) return { result };
      usd = unsent * price;
      held = await hold(usd);
      if ('failed' in held) return unsentFor(held.failed);
      if (!('id' in held)) return { result, refusal: { whose: held.refused, spent: held.spent } };
    }
    const id = held.id;
    let spend: UpstreamResult['spend'] | undefined;
    try {
      result = await call(usd);
      spend = result.spend;
    } finally {
      // What was bought is settled with the answer; a call that threw bought nothing this gateway can name.
      await book.settle(id, key.name, endpoint, spend ?? NOTHING);
    }
    return { result };
  } finally {
    const answered = result?.answers.filter((answer) => answer.kind === 'answer').length ?? 0;
    activity.end(key.name, settings.clock.now(), answered, result?.spend.fromStore ?? 0);
  }
}
