import { BudgetReachedError } from '../errors/index.js';

export interface BudgetLimits {
  maxComponents?: number;
  /** USD at list price. */
  maxCost?: number;
  /** --max-cost-month: the account's monthly cap, and what the month had cost before this run (the local store). */
  maxCostMonth?: { cap: number; spent: number };
}

/** How much of a request the caps let through, and why not the rest. */
export interface BudgetVerdict {
  items: number;
  stop?: BudgetReachedError;
}

/**
 * Spending caps for unattended runs. Requests are admitted before they are sent and counted at
 * list price as if every section were charged (204s are not, so the real bill is at most this):
 * the run stops before it could pass a cap, never after. The last request is fitted to what
 * remains, down to one item, so any cap of at least one item's price makes progress.
 */
export class Budget {
  readonly #limits: BudgetLimits;
  readonly #pricePerItem: number;
  readonly #componentsPerItem: number;
  components = 0;

  constructor(limits: BudgetLimits, pricePerItem: number, componentsPerItem: number) {
    this.#limits = limits;
    this.#pricePerItem = pricePerItem;
    this.#componentsPerItem = componentsPerItem;
  }

  get cost(): number {
    return (this.components / this.#componentsPerItem) * this.#pricePerItem;
  }

  /** Why not even one item fits a fresh run, with the least cap that would: checked before anything is sent. */
  tooSmallForOneItem(): BudgetReachedError | undefined {
    const { maxComponents, maxCost, maxCostMonth } = this.#limits;
    if (maxCostMonth && maxCostMonth.cap - maxCostMonth.spent + 1e-9 < this.#pricePerItem) {
      return new BudgetReachedError(
        `--max-cost-month ${maxCostMonth.cap} USD is reached: this month has cost ${maxCostMonth.spent.toFixed(2)} USD at list price, and one item costs ${this.#pricePerItem.toFixed(2)}`,
      );
    }
    if (maxComponents !== undefined && maxComponents < this.#componentsPerItem) {
      return new BudgetReachedError(
        `--max-components ${maxComponents} is less than one item needs (${this.#componentsPerItem}); raise it to at least ${this.#componentsPerItem}`,
      );
    }
    if (maxCost !== undefined && maxCost + 1e-9 < this.#pricePerItem) {
      return new BudgetReachedError(
        `--max-cost ${maxCost} USD is less than one item's list price (${this.#pricePerItem.toFixed(2)} USD); raise it to at least ${this.#pricePerItem.toFixed(2)}`,
      );
    }
    return undefined;
  }

  /** Admits as many of `items` as the caps allow (all, some or none) and counts them. */
  fit(items: number): BudgetVerdict {
    const { maxComponents, maxCost, maxCostMonth } = this.#limits;
    let admitted = items;
    if (maxComponents !== undefined) admitted = Math.min(admitted, Math.floor((maxComponents - this.components) / this.#componentsPerItem));
    for (const cap of [maxCost, maxCostMonth && maxCostMonth.cap - maxCostMonth.spent]) {
      if (cap !== undefined && this.#pricePerItem > 0)
        admitted = Math.min(admitted, Math.floor((cap - this.cost + 1e-9) / this.#pricePerItem));
    }
    admitted = Math.max(0, admitted);
    this.components += admitted * this.#componentsPerItem;
    if (admitted === items) return { items };
    return { items: admitted, stop: this.#reached() };
  }

  #reached(): BudgetReachedError {
    const { maxComponents, maxCost, maxCostMonth } = this.#limits;
    if (maxComponents !== undefined && this.components + this.#componentsPerItem > maxComponents) {
      return new BudgetReachedError(`stopped before --max-components ${maxComponents} is passed (${this.components} used)`);
    }
    if (maxCostMonth && (maxCost === undefined || maxCostMonth.cap - maxCostMonth.spent < maxCost)) {
      return new BudgetReachedError(
        `stopped before --max-cost-month ${maxCostMonth.cap} USD is passed (${(maxCostMonth.spent + this.cost).toFixed(2)} USD this month at list price)`,
      );
    }
    return new BudgetReachedError(
      `stopped before --max-cost ${this.#limits.maxCost} USD is passed (${this.cost.toFixed(2)} USD at list price used)`,
    );
  }
}
