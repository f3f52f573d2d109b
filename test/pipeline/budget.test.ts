import { describe, expect, it } from 'vitest';
import { BudgetReachedError } from '../../src/errors/index.js';
import { Budget } from '../../src/pipeline/budget.js';

describe('Budget', () => {
  it('admits requests up to --max-components and refuses the one that would pass it', () => {
    const budget = new Budget({ maxComponents: 250 }, 0.25, 2);
    budget.admit(100);
    expect(() => budget.admit(26)).toThrow(BudgetReachedError);
    budget.admit(25);
    expect(budget.components).toBe(250);
  });

  it('prices items at list price for --max-cost', () => {
    const budget = new Budget({ maxCost: 10 }, 0.25, 1);
    budget.admit(40);
    expect(budget.cost).toBe(10);
    expect(() => budget.admit(1)).toThrow(/--max-cost 10 USD/);
  });
});
