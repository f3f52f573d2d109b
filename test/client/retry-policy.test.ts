import { describe, expect, it } from 'vitest';
import { decideRetry, NO_ATTEMPTS, type Attempts, type RetryDecision } from '../../src/client/retry-policy.js';
import { DEFAULT_RETRY_POLICY } from '../../src/policy/policy.js';
import { NetworkError, ServerError, UnreadableAnswerError } from '../../src/errors/index.js';

const unreadable = new UnreadableAnswerError('v2/property/value', 200, 'an empty body');
const failing = new ServerError(503, 'down');
const decide = (error: unknown, attempts: Attempts = NO_ATTEMPTS, policy = DEFAULT_RETRY_POLICY): RetryDecision =>
  decideRetry(error, attempts, policy, 0, () => 0.5);
const next = (decision: RetryDecision): Attempts => {
  if (decision.action !== 'retry') throw new Error(`expected a retry, got ${decision.action}`);
  return decision.next;
};

describe('the retry policy for an answer that cannot be read', () => {
  it('asks once more and says the failed answer may have been charged; a second one is final', () => {
    const first = decide(unreadable);
    expect(first).toMatchObject({ action: 'retry', possiblyCharged: true });
    expect(decide(unreadable, next(first))).toEqual({ action: 'give up' });
  });

  it('keeps its one retry after 5xx retries, and 5xx retries after it, within --max-retries', () => {
    const afterTwo5xx = next(decide(failing, next(decide(failing))));
    const afterUnreadable = next(decide(unreadable, afterTwo5xx));
    expect(decide(failing, afterUnreadable)).toMatchObject({ action: 'retry', possiblyCharged: false });
    expect(decide(unreadable, afterUnreadable)).toEqual({ action: 'give up' });
  });

  it('is not retried at all with --max-retries 0', () => {
    expect(decide(unreadable, NO_ATTEMPTS, { ...DEFAULT_RETRY_POLICY, maxRetries: 0 })).toEqual({ action: 'give up' });
  });
});

describe('the retry policy for a network failure', () => {
  it('retries a refused connection or a DNS lookup that did not answer, but not a host name that does not exist', () => {
    const refused = new NetworkError('connection refused', { mayHaveBeenCharged: false });
    const lookupFailed = new NetworkError('lookup failed', { mayHaveBeenCharged: false });
    const noSuchHost = new NetworkError('host api.invalid not found', { mayHaveBeenCharged: false, lasting: true });
    expect(decide(refused)).toMatchObject({ action: 'retry', possiblyCharged: false });
    expect(decide(lookupFailed)).toMatchObject({ action: 'retry' });
    expect(decide(noSuchHost)).toEqual({ action: 'give up' });
  });
});
