import type { BudgetLimits } from '../pipeline/budget.js';

/** What a run may spend: per run in components and USD at list price, and the account's USD this UTC month. */
export interface SpendingCaps {
  maxComponents?: number;
  maxCost?: number;
  maxCostMonth?: number;
}

/** The caps as the budget takes them: --max-cost-month against what the month had cost before this run (from the store). */
export function budgetLimits(caps: SpendingCaps, monthToDateCost: () => number): BudgetLimits {
  return {
    ...(caps.maxComponents !== undefined ? { maxComponents: caps.maxComponents } : {}),
    ...(caps.maxCost !== undefined ? { maxCost: caps.maxCost } : {}),
    ...(caps.maxCostMonth !== undefined ? { maxCostMonth: { cap: caps.maxCostMonth, spent: monthToDateCost() } } : {}),
  };
}
