import { errorReply, type Reply } from '../wire/replies.js';
import type { ClientKey } from '../store/key-store.js';

/** A key's share is counted over the last minute, as `--rate` states it: components a minute. */
const MINUTE_MS = 60_000;

/** Components a call took of its key's share: what it did not use is given back. */
export interface RateTake {
  at: number;
  components: number;
}

/**
 * Each key's share of the account's rate (`keys add|set --rate`: components a minute), on this
 * gateway: a call takes what it may send at most (every item, every section) before it is sent,
 * and gives back what it did not send (answers from the store, items refused) once answered. A
 * call that would pass the key's share waits for nothing: it gets a 429 with when it fits, as the
 * service's own. Kept in memory: on several gateways, a key's share is its share on each.
 */
export class KeyRates {
  readonly #taken = new Map<string, RateTake[]>();

  /** Takes `components` of the key's share at `now`, or says when they would fit (never, for more than a minute's share). */
  take(key: ClientKey, components: number, now: number): { taken?: RateTake } | { retryAt: number; rate: number } {
    const rate = key.ratePerMinute;
    if (rate === undefined) return {};
    const recent = (this.#taken.get(key.name) ?? []).filter((take) => take.at > now - MINUTE_MS && take.components > 0);
    this.#taken.set(key.name, recent);
    if (components > rate) return { retryAt: Number.POSITIVE_INFINITY, rate };
    let used = recent.reduce((sum, take) => sum + take.components, 0);
    if (used + components > rate) {
      const freeing = recent.find((take) => (used -= take.components) + components <= rate)!;
      return { retryAt: freeing.at + MINUTE_MS, rate };
    }
    const taken = { at: now, components };
    recent.push(taken);
    return { taken };
  }

  /** A call is answered: the components it took and did not send go back to its key's share. */
  giveBack(taken: RateTake | undefined, sent: number): void {
    if (taken) taken.components = Math.min(taken.components, Math.max(0, sent));
  }
}

/** The 429 of a call beyond its key's share: when it fits (Retry-After), or that it never will. */
export function rateShareReply(
  key: ClientKey,
  refused: { retryAt: number; rate: number },
  components: number,
  now: number,
  rateHeaders: Record<string, string>,
): Reply {
  if (!Number.isFinite(refused.retryAt)) {
    return errorReply(
      429,
      `key "${key.name}" may send ${refused.rate} components a minute; this request asks for ${components}: send fewer items a request`,
      rateHeaders,
    );
  }
  const wait = Math.max(1, Math.ceil((refused.retryAt - now) / 1000));
  return errorReply(
    429,
    `key "${key.name}" has used its share of ${refused.rate} components a minute: send the request again in ${wait} s`,
    {
      ...rateHeaders,
      'Retry-After': String(wait),
    },
  );
}
