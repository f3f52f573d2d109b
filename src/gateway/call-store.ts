import { takes } from '../store/claim-protocol.js';
import type { ClaimResult, SectionClaim, Store } from '../store/store-api.js';
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

/** What a gateway calls the store for: its spend log's run, and the owner of every claim its calls make. */
export interface GatewayNames {
  /** The run its requests are filed under (`usage --by run`: one a gateway, not one a call). */
  run: string;
  /**
   * The owner of its claims, the same after a restart on the same host and address: a gateway
   * killed mid-request is taken over at once by the next one, as a job's next run takes over
   * what its killed run was buying, instead of the client's retry waiting out the lease.
   */
  claimant: string;
}

type Held = Map<string, { call: number; account: string; claim: SectionClaim }>;

const keyOf = (account: string, claim: SectionClaim) => `${account}\n${claim.item}\n${claim.endpoint}\n${claim.params}`;

/** Claims in the store under the gateway's name, each section held by one call in memory: calls of one gateway wait for each other's purchases. */
function callClaims(store: Store, claimant: string, held: Held, call: number): Partial<Store> {
  const mine = () => [...held.values()].filter((entry) => entry.call === call);
  const giveUp = async (account: string, claims: readonly SectionClaim[]) => {
    const own = claims.filter((claim) => held.get(keyOf(account, claim))?.call === call);
    for (const claim of own) held.delete(keyOf(account, claim));
    if (own.length > 0) await store.release(account, claimant, own);
  };
  return {
    async claim(account, _owner, sections, freshness, leaseMs, options) {
      const results: ClaimResult[] = sections.map(() => 'held');
      // Marked before the store is asked: a call asking meanwhile finds them this call's.
      const asked = sections.flatMap((claim, i) => {
        const holder = held.get(keyOf(account, claim));
        if (holder !== undefined && holder.call !== call) return [];
        held.set(keyOf(account, claim), { call, account, claim });
        return [i];
      });
      const outcomes =
        asked.length > 0
          ? await store.claim(
              account,
              claimant,
              asked.map((i) => sections[i]!),
              freshness,
              leaseMs,
              options,
            )
          : [];
      outcomes.forEach((outcome, j) => {
        const i = asked[j]!;
        results[i] = outcome;
        if (!takes(outcome)) held.delete(keyOf(account, sections[i]!));
      });
      return results;
    },
    // Held by another call of this gateway (in memory), or by another owner in the store: never by
    // the gateway's own name, which a killed predecessor's claims carry (they are this gateway's to take).
    async held(account, _owner, sections) {
      const inStore = await store.held(account, claimant, sections);
      return sections.map((claim, i) => {
        const holder = held.get(keyOf(account, claim));
        return (holder !== undefined && holder.call !== call) || inStore[i]!;
      });
    },
    release: (account, _owner, sections) => giveUp(account, sections),
    releaseAll: async () => {
      const byAccount = new Map<string, SectionClaim[]>();
      for (const { account, claim } of mine()) byAccount.set(account, [...(byAccount.get(account) ?? []), claim]);
      for (const [account, claims] of byAccount) await giveUp(account, claims);
    },
    renewClaims: (_owner, leaseMs) => store.renewClaims(claimant, leaseMs),
  };
}

/**
 * The store as one call of the gateway sees it, for the engine's run store (engine/run-store.ts),
 * which is made for a run that opens the store and closes it: here the store is the gateway's, open
 * for its life, and a call is one run of many at once. So a call's view
 *
 * - does not close the store, nor leave a pacer of its own (the gateway's limiter paces every call);
 * - files the requests it records under the gateway's run, each at a time of its own: the store
 *   applies an entry of the same run and time once, and two calls answered in one millisecond must
 *   both be kept;
 * - claims what it buys under the gateway's name (GatewayNames.claimant), holding each section for
 *   one call in memory, so that a call waits for another's purchase (a second call's claim is
 *   `held`) and a restarted gateway takes its predecessor's claims over at once.
 *
 * The engine's session API (issue 34) is to offer this itself; until then, the gateway's calls run
 * on the engine as it is.
 */
export function callStore(store: Store, names: GatewayNames, clock: Clock): { viewFor: () => Store; claimsHeld: () => number } {
  let lastAt = 0;
  const requestTime = () => (lastAt = Math.max(clock.now(), lastAt + 1));
  const held: Held = new Map();
  let calls = 0;
  const viewFor = () => {
    const call = (calls += 1);
    const claims = callClaims(store, names.claimant, held, call);
    const overrides: Partial<Store> = {
      ...claims,
      close: () => Promise.resolve(),
      pacer: () => UNUSED_PACER,
      record: (entry) => {
        const { account } = entry.request;
        // What this call bought settles its claims; a section another call of the gateway is buying stays claimed.
        const settles = (entry.settles ?? []).filter((claim) => (held.get(keyOf(account, claim))?.call ?? call) === call);
        for (const claim of settles) held.delete(keyOf(account, claim));
        const request = { ...entry.request, run: names.run, at: requestTime() };
        return store.record({ ...entry, request, ...(entry.owner !== undefined ? { owner: names.claimant, settles } : {}) });
      },
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
  return { viewFor, claimsHeld: () => held.size };
}
