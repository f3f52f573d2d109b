import type { Dispatcher } from 'undici';
import { startTimer, type Clock } from '../throttle/clock.js';
import type { Exchange, ExchangeLimits } from './transport.js';

/**
 * One request through `dispatcher`, its body collected whole, within `deadlineMs` (on `clock`)
 * and until `signal` aborts. A deadline or an abort settles at once, even for a request still waiting for
 * a socket (undici's own `request()` would wait for the connection); such a request is then
 * dropped when its turn comes, never sent.
 *
 * undici's handler interface is used rather than `request()` for the moment the request goes out
 * (`onRequestStart`): after it a failure may have been charged, before it cannot have been.
 */
export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  limits: ExchangeLimits,
  clock: Clock,
): Promise<Exchange> {
  const { deadlineMs, signal } = limits;
  if (signal?.aborted) return Promise.resolve({ outcome: 'aborted', sent: false });
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let sent = false;
    let settled = false;
    let status = 0;
    let headers: Dispatcher.ResponseData['headers'] = {};
    const parts: Buffer[] = [];

    const settle = (result: Exchange): void => {
      if (settled) return;
      settled = true;
      cancelDeadline();
      signal?.removeEventListener('abort', onAbort);
      // Cut short here: the socket is closed so that nothing more is read or sent.
      if (result.outcome === 'timed out' || result.outcome === 'aborted') controller?.abort(new Error(`request ${result.outcome}`));
      resolve(result);
    };
    const onAbort = (): void => settle({ outcome: 'aborted', sent });
    const cancelDeadline = startTimer(clock, deadlineMs, () => settle({ outcome: 'timed out', sent }));
    signal?.addEventListener('abort', onAbort, { once: true });

    dispatcher.dispatch(options, {
      onRequestStart(started) {
        if (settled) {
          started.abort(new Error('request cancelled before it was sent'));
          return;
        }
        controller = started;
        sent = true;
      },
      // Called for 1xx informational heads too; the last call is the final response's.
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData(_controller, chunk) {
        parts.push(chunk);
      },
      onResponseEnd() {
        settle({ outcome: 'answered', status, headers, body: Buffer.concat(parts).toString('utf8') });
      },
      onResponseError(_controller, error) {
        settle({ outcome: 'failed', error, sent });
      },
    });
  });
}
