import { describe, expect, it } from 'vitest';
import { BudgetReachedError } from '../../src/errors/index.js';
import { Budget } from '../../src/pipeline/budget.js';

describe('Budget', () => {
  it('admits requests up to --max-components and fits the last one to what remains', () => {
    const budget = new Budget({ maxComponents: 250 }, { components: 2, price: 0.25 });
    expect(budget.fit(100)).toEqual({ items: 100 });
    const last = budget.fit(100);
    expect(last.items).toBe(25);
    expect(last.stop).toBeInstanceOf(BudgetReachedError);
    expect(budget.components).toBe(250);
    expect(budget.fit(1).items).toBe(0);
  });

  it('prices items at list price for --max-cost, down to a single item', () => {
    const budget = new Budget({ maxCost: 5 }, { components: 1, price: 1.25 });
    const verdict = budget.fit(100);
    expect(verdict.items).toBe(4);
    expect(budget.cost).toBe(5);
    expect(verdict.stop?.message).toMatch(/--max-cost 5 USD/);
  });

  it('says when a cap is below one item and which cap would do', () => {
    expect(new Budget({ maxCost: 1 }, { components: 1, price: 1.25 }).tooSmallForOneItem()?.message).toMatch(/raise it to at least 1\.25/);
    expect(new Budget({ maxComponents: 2 }, { components: 3, price: 1 }).tooSmallForOneItem()?.message).toMatch(/at least 3/);
    expect(new Budget({ maxCost: 1.25 }, { components: 1, price: 1.25 }).tooSmallForOneItem()).toBeUndefined();
  });

  it('--max-cost-month counts what the month had cost before this run', () => {
    const budget = new Budget({ maxCostMonth: { cap: 10, spent: 9 } }, { components: 1, price: 0.25 });
    const verdict = budget.fit(100);
    expect(verdict.items).toBe(4);
    expect(verdict.stop?.message).toMatch(/--max-cost-month 10 USD is passed \(10\.00 USD this month/);
    expect(new Budget({ maxCostMonth: { cap: 10, spent: 9.9 } }, { components: 1, price: 0.25 }).tooSmallForOneItem()?.message).toMatch(
      /--max-cost-month 10 USD is reached/,
    );
  });
});
