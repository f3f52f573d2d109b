import { chunkProblem } from '../client/chunk-problem.js';
import { interpretResponse } from '../client/interpret-response.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, isTransient } from '../client/retry-policy.js';
import type { RawResponse, ServiceClient, ServiceRequest } from '../client/service-client.js';
import { BadResponseError, RateLimitedError } from '../errors/index.js';
import type { Chunk } from '../output/record.js';
import { SYSTEM_CLOCK, type Clock } from '../throttle/clock.js';
import type { Messages } from './io.js';

export interface OneOffPolicy {
  maxRetries: number;
  /** The longest 429 wait worth sitting through, in ms; beyond it we say when to retry instead. */
  maxWaitMs: number;
  /** Ctrl-C or SIGTERM: ends any wait and the request at once. */
  signal?: AbortSignal;
}

/**
 * One item, one request: 5xx and network failures are retried with backoff; a 429 is waited out
 * when its reset is near enough. Everything else is final, an answer with an unusable chunk too.
 */
export async function queryOne(
  client: ServiceClient,
  request: ServiceRequest,
  policy: OneOffPolicy,
  messages: Messages,
  clock: Clock = SYSTEM_CLOCK,
): Promise<{ response: RawResponse; chunks: Chunk[] }> {
  const retry = { ...DEFAULT_RETRY_POLICY, maxRetries: policy.maxRetries };
  const { signal } = policy;
  // A stop ends a wait with the stop's own reason (exit 130), not a timer's AbortError.
  const sleep = (ms: number) =>
    clock.sleep(ms, signal).catch((error: unknown) => {
      throw signal?.aborted ? signal.reason : error;
    });
  for (let attempt = 0, rateLimited = 0; ; ) {
    try {
      const response = await client.send(signal ? { ...request, signal } : request);
      const chunks = interpretResponse(response, request.path);
      // Thrown inside the try, but not transient: an answered request is not sent again.
      const problem = chunks.map(chunkProblem).find((found) => found !== undefined);
      if (problem !== undefined) throw new BadResponseError(request.path, problem);
      return { response, chunks };
    } catch (error) {
      if (error instanceof RateLimitedError && rateLimited < 3) {
        const wait = error.retryAt === undefined ? backoffDelay(retry, rateLimited) : error.retryAt - clock.now() + 250;
        if (wait <= policy.maxWaitMs) {
          rateLimited += 1;
          messages.info(`propdata: rate limit reached (HTTP 429); waiting ${Math.ceil(Math.max(wait, 0) / 1000)} s for it to reset`);
          await sleep(Math.max(wait, 0));
          continue;
        }
      }
      if (isTransient(error) && attempt < retry.maxRetries) {
        const wait = backoffDelay(retry, attempt);
        attempt += 1;
        messages.debug(`retrying in ${wait} ms after: ${(error as Error).message}`);
        await sleep(wait);
        continue;
      }
      throw error;
    }
  }
}
