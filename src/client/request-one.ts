import { BadResponseError } from '../errors/index.js';
import type { Chunk } from '../model/chunk.js';
import type { Clock } from '../throttle/clock.js';
import { parseRateHeaders, type ReportedWindow } from '../throttle/rate-headers.js';
import { ServiceClock } from '../throttle/service-clock.js';
import { chunkProblem } from './chunk-problem.js';
import { interpretResponse } from './interpret-response.js';
import { decideRetry, NO_ATTEMPTS, type RetryPolicy } from './retry-policy.js';
import type { RawResponse, Service, ServiceRequest } from './service-client.js';

export interface RequestOneOptions {
  policy: RetryPolicy;
  clock: Clock;
  /** Ctrl-C or SIGTERM: ends any wait and the request at once, with the signal's reason. */
  signal?: AbortSignal;
  /** Before a wait for the rate limit (for a message). */
  onRateLimitWait?: (ms: number) => void;
  /** Before a retry after a transient failure (for --verbose). */
  onRetry?: (delayMs: number, reason: string) => void;
}

/**
 * One item, one request, tried as the retry policy says: 5xx and network failures again after a
 * backoff, a 429 after its reset when that is within --max-wait (beyond it, the 429 is final and
 * says when to retry), a body that cannot be read once more (retry-policy.ts). An answer with an
 * unusable chunk, or none, is final (an answered request is not sent again).
 */
export async function requestOne(
  service: Service,
  request: ServiceRequest,
  options: RequestOneOptions,
): Promise<{ response: RawResponse; chunks: Chunk[]; windows: ReportedWindow[] }> {
  const { clock, signal } = options;
  // Every answer tells the service's time: a 429's reset is waited for on this machine's clock.
  const serviceClock = new ServiceClock();
  // A stop ends a wait with the stop's own reason (exit 130), not a timer's AbortError.
  const sleep = (ms: number) =>
    clock.sleep(ms, signal).catch((error: unknown) => {
      throw signal?.aborted ? signal.reason : error;
    });
  for (let attempts = NO_ATTEMPTS; ;) {
    try {
      const sentAt = clock.now();
      const response = await service.send(signal ? { ...request, signal } : request);
      serviceClock.observe({ headers: response.headers, sentAt, receivedAt: clock.now() });
      const chunks = interpretResponse(response, request.path, clock.now(), serviceClock.toLocal);
      // The spec's answer to one item has one chunk: an empty array answers nothing, and printing `[]` would pass for an answer.
      if (chunks.length === 0) throw new BadResponseError(request.path, 'the service answered no chunk (an empty array)');
      const problem = chunks.map(chunkProblem).find((found) => found !== undefined);
      if (problem !== undefined) throw new BadResponseError(request.path, problem);
      // Its windows in this machine's time, for the store (the next run starts from them).
      return { response, chunks, windows: serviceClock.localWindows(parseRateHeaders(response.headers)) };
    } catch (error) {
      const decision = decideRetry(error, attempts, options.policy, clock.now());
      if (decision.action === 'wait') {
        const wait = Math.max(0, decision.until - clock.now());
        options.onRateLimitWait?.(wait);
        await sleep(wait);
        attempts = decision.next;
      } else if (decision.action === 'retry') {
        options.onRetry?.(decision.delayMs, error instanceof Error ? error.message : String(error));
        await sleep(decision.delayMs);
        attempts = decision.next;
      } else {
        // A 429 beyond --max-wait is final for one item: its message says when to retry.
        throw error;
      }
    }
  }
}
