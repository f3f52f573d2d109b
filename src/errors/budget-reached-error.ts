import { PropdataError } from './propdata-error.js';

/** --max-components or --max-cost would be passed by the next request: the run stops, resumable. */
export class BudgetReachedError extends PropdataError {
  constructor(message: string) {
    super('E_BUDGET_REACHED', message);
  }
}
