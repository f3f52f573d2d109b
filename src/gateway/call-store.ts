import type { Store } from '../store/store-api.js';
import type { Clock } from '../throttle/clock.js';
import type { SharedPacer } from '../throttle/shared-pacer.js';

/** A call's pacer: the gateway paces every call with its one limiter, so a call's own is never asked. */
const UNUSED_PACER: SharedPacer = {
  join: () => Promise.resolve(),
  reserve: () => Promise.reject(new Error("a gateway's call paces through the gateway's limiter")),
  report: () => Promise.resolve(),
  refund: () => Promise.resolve(),
  leave: () => Promise.resolve(),
};

/**
 * The store as one call of the gateway sees it, for the engine's run store (engine/run-store.ts),
 * which is made for a run that opens the store and closes it: here the store is the gateway's, open
 * for its life, and a call is one run of many at once. So a call's view
 *
 * - does not close the store, nor leave a pacer of its own (the gateway's limiter paces every call);
 * - files the requests it records under the gateway's run (`usage --by run` shows one run a gateway,
 *   not one a call), each at a time of its own: the store applies an entry of the same run and time
 *   once, and two calls answered in one millisecond must both be kept;
 * - skips giving up its claims when it made none (a call the store answered whole), a write saved
 *   on every such call.
 *
 * The engine's session API (issue 34) is to offer this itself; until then, the gateway's calls run
 * on the engine as it is.
 */
export function callStore(store: Store, gatewayRun: string, clock: Clock): () => Store {
  let lastAt = 0;
  const requestTime = () => (lastAt = Math.max(clock.now(), lastAt + 1));
  return () => {
    let claimed = false;
    const overrides: Partial<Store> = {
      close: () => Promise.resolve(),
      pacer: () => UNUSED_PACER,
      record: (entry) => store.record({ ...entry, request: { ...entry.request, run: gatewayRun, at: requestTime() } }),
      claim: (...args) => {
        claimed = true;
        return store.claim(...args);
      },
      releaseAll: (owner) => (claimed ? store.releaseAll(owner) : Promise.resolve()),
    };
    return new Proxy(store, {
      get(target, name) {
        if (Object.hasOwn(overrides, name)) return overrides[name as keyof Store];
        const value: unknown = Reflect.get(target, name);
        // The store's own methods use its private fields: they run on the store, not on the view.
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
}
