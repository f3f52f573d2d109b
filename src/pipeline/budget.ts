import { BudgetReachedError } from '../errors/index.js';

export interface BudgetLimits {
  maxComponents?: number;
  /** USD at list price. */
  maxCost?: number;
}

/**
 * Spending caps for unattended runs. Requests are admitted before they are sent and counted at
 * list price as if every section were charged (204s are not, so the real bill is at most this):
 * the run stops before it could pass a cap, never after.
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

  /** Counts `items` against the caps, or throws when they would pass one. */
  admit(items: number): void {
    const components = this.components + items * this.#componentsPerItem;
    const cost = (components / this.#componentsPerItem) * this.#pricePerItem;
    const { maxComponents, maxCost } = this.#limits;
    if (maxComponents !== undefined && components > maxComponents) {
      throw new BudgetReachedError(`stopping before --max-components ${maxComponents} is passed (${this.components} used)`);
    }
    if (maxCost !== undefined && cost > maxCost + 1e-9) {
      throw new BudgetReachedError(`stopping before --max-cost ${maxCost} USD is passed (${this.cost.toFixed(2)} USD at list price used)`);
    }
    this.components = components;
  }
}
