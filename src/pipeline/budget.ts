import { BudgetReachedError } from '../errors/index.js';

export interface BudgetLimits {
  maxComponents?: number;
  /** USD at list price. */
  maxCost?: number;
  /** --max-cost-month: the account's monthly cap, and what the month had cost before this run (the local store). */
  maxCostMonth?: { cap: number; spent: number };
}

/** What one item of a request costs: its components, and its sections' list price. */
export interface ItemCost {
  components: number;
  price: number;
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
  /** An item with every section to buy: what a fresh run's first item costs. */
  readonly #wholeItem: ItemCost;
  components = 0;
  cost = 0;

  constructor(limits: BudgetLimits, wholeItem: ItemCost) {
    this.#limits = limits;
    this.#wholeItem = wholeItem;
  }

  /** Why not even one item fits a fresh run, with the least cap that would: checked before anything is sent. */
  tooSmallForOneItem(): BudgetReachedError | undefined {
    const { maxComponents, maxCost, maxCostMonth } = this.#limits;
    const { components, price } = this.#wholeItem;
    if (maxCostMonth && maxCostMonth.cap - maxCostMonth.spent + 1e-9 < price) {
      return new BudgetReachedError(
        `--max-cost-month ${maxCostMonth.cap} USD is reached: this month has cost ${maxCostMonth.spent.toFixed(2)} USD at list price, and one item costs ${price.toFixed(2)}`,
      );
    }
    if (maxComponents !== undefined && maxComponents < components) {
      return new BudgetReachedError(
        `--max-components ${maxComponents} is less than one item needs (${components}); raise it to at least ${components}`,
      );
    }
    if (maxCost !== undefined && maxCost + 1e-9 < price) {
      return new BudgetReachedError(
        `--max-cost ${maxCost} USD is less than one item's list price (${price.toFixed(2)} USD); raise it to at least ${price.toFixed(2)}`,
      );
    }
    return undefined;
  }

  /**
   * Admits as many of `items` as the caps allow (all, some or none) and counts them. `item`: what
   * each costs, when less than a whole item (an mget of the components the store lacks).
   */
  fit(items: number, item: ItemCost = this.#wholeItem): BudgetVerdict {
    const { maxComponents, maxCost, maxCostMonth } = this.#limits;
    let admitted = items;
    if (maxComponents !== undefined) admitted = Math.min(admitted, Math.floor((maxComponents - this.components) / item.components));
    for (const cap of [maxCost, maxCostMonth && maxCostMonth.cap - maxCostMonth.spent]) {
      if (cap !== undefined && item.price > 0) admitted = Math.min(admitted, Math.floor((cap - this.cost + 1e-9) / item.price));
    }
    admitted = Math.max(0, admitted);
    this.components += admitted * item.components;
    this.cost += admitted * item.price;
    if (admitted === items) return { items };
    return { items: admitted, stop: this.#reached(item) };
  }

  #reached(item: ItemCost): BudgetReachedError {
    const { maxComponents, maxCost, maxCostMonth } = this.#limits;
    if (maxComponents !== undefined && this.components + item.components > maxComponents) {
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
