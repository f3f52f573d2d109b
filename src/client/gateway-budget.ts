/**
 * The header a propdata gateway's 402 carries when a budget of its own refused the request (`key`:
 * the client key's month budget; `account`: the account's --max-cost-month), so that a client
 * tells it from the service's 402 (credit exhausted): a budget is reached, no payment is missing.
 */
export const BUDGET_HEADER = 'X-Propdata-Budget';
