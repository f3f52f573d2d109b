import {
  AuthError,
  BudgetReachedError,
  CreditExhaustedError,
  ForbiddenError,
  ItemTooWideError,
  QuotaWaitError,
  StoreError,
} from '../errors/index.js';
import { BUDGET_HEADER } from '../client/gateway-budget.js';
import { errorReply, type Reply } from '../wire/replies.js';
import type { UpstreamResult } from './upstream.js';

/** The gateway is stopping (SIGTERM): a call waiting for its turn is answered at once, not sent. */
export class GatewayStopping extends Error {
  constructor() {
    super('the gateway is stopping: send the request again (to it once restarted, or to another gateway)');
  }
}

/** What the reply to a call needs beyond the call's result. */
export interface ReplyContext {
  /** The X-RateLimit-* headers every answer carries. */
  rateHeaders: Record<string, string>;
  now: number;
  /** The 402 when the call stopped at a budget: which budget (the key's, or the account's), and its message (how far spent). */
  budget(): { whose: 'key' | 'account'; message: string };
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * A 429 whose headers say when the request can go: every window stated as spent until then (the
 * service's own shape; a client that waits for X-RateLimit-Reset, or for Retry-After, comes back
 * when there is room for it).
 */
function waitReply(message: string, retryAt: number, context: ReplyContext): Reply {
  const headers = { ...context.rateHeaders };
  const resetSecond = Math.ceil(retryAt / 1000);
  const periods = headers['X-RateLimit-Period']?.split(',') ?? [];
  if (periods.length > 0) {
    const resets = headers['X-RateLimit-Reset']!.split(',').map(Number);
    headers['X-RateLimit-Remaining'] = periods.map(() => '0').join(',');
    headers['X-RateLimit-Reset'] = resets.map((reset) => Math.max(reset, resetSecond)).join(',');
  }
  headers['Retry-After'] = String(seconds(retryAt - context.now));
  return errorReply(429, message, headers);
}

/** Why a call stopped, as the service would answer it (never a stack, never the gateway's credentials). */
function stopReply(stop: unknown, context: ReplyContext): Reply {
  if (stop instanceof QuotaWaitError) {
    const wait = seconds(stop.resetAt - context.now);
    return waitReply(
      `Rate limit: this request would wait ${wait} s for its turn, past its limit; send it again after X-RateLimit-Reset`,
      stop.resetAt,
      context,
    );
  }
  if (stop instanceof ItemTooWideError) return errorReply(429, stop.message, context.rateHeaders);
  if (stop instanceof BudgetReachedError) {
    // Named apart from the service's own 402 (credit): a client of the gateway stops at a budget, not for payment.
    const { whose, message } = context.budget();
    return errorReply(402, message, { ...context.rateHeaders, [BUDGET_HEADER]: whose });
  }
  if (stop instanceof CreditExhaustedError) return errorReply(402, `the account's ${stop.message}`, context.rateHeaders);
  if (stop instanceof AuthError || stop instanceof ForbiddenError) {
    return errorReply(502, `the service refused the gateway's own credentials (HTTP ${stop.status}): tell the gateway's operator`);
  }
  if (stop instanceof StoreError)
    return errorReply(503, "the gateway's store failed: send the request again shortly", { 'Retry-After': '5' });
  if (stop instanceof GatewayStopping) return errorReply(503, stop.message, { 'Retry-After': '1' });
  return errorReply(502, `the service could not be reached: ${stop instanceof Error ? stop.message : String(stop)}`);
}

/**
 * The answer to a call: the chunks in request order when every item has one (a 200, as the
 * service's); otherwise what kept them from it. Whatever was bought is in the store by now, so a
 * request sent again gets those items from it.
 */
export function callReply(result: UpstreamResult, context: ReplyContext): Reply {
  const invalid = result.answers.find((answer) => answer.kind === 'invalid');
  if (invalid) return errorReply(400, invalid.message, context.rateHeaders);
  if (result.answers.some((answer) => answer.kind === 'unsent')) return stopReply(result.stop, context);
  const failed = result.answers.filter((answer) => answer.kind === 'failed');
  if (failed.length > 0) {
    return errorReply(
      502,
      `the service failed ${failed.length} of the request's ${result.answers.length} items after retries (${failed[0]!.message}); the others are kept: send the request again`,
      context.rateHeaders,
    );
  }
  const chunks = result.answers.map((answer) => (answer.kind === 'answer' ? answer.chunk : undefined));
  return { status: 200, body: chunks, headers: context.rateHeaders };
}
