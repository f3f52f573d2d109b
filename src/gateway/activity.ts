import { GATEWAY_WAITS } from '../policy/policy.js';

/** Refusals the status page lists, newest first. */
const REFUSALS_KEPT = 20;

/** A request the gateway refused (any answer but 200), as the status page lists it: never an item, never a credential. */
export interface Refusal {
  at: number;
  /** The key's name; absent when none was recognised (a failed login). */
  key?: string;
  /** Who sent it (client-address.ts). */
  address: string;
  status: number;
  reason: string;
}

export interface ClientActivity {
  key: string;
  inFlight: number;
  lastSeen: number;
  requests: number;
  items: number;
  fromStore: number;
}

export interface ActivitySnapshot {
  /** Clients with a request in flight, or one within the last minute, by name. */
  active: ClientActivity[];
  /** Items answered since the gateway started, and how many of them came from the store. */
  items: number;
  fromStore: number;
  refusals: readonly Refusal[];
}

/** What the gateway's clients are doing, for the status page: in memory, since the gateway started. */
export class Activity {
  readonly #clients = new Map<string, ClientActivity>();
  #refusals: Refusal[] = [];
  #items = 0;
  #fromStore = 0;

  begin(key: string, now: number): void {
    const client = this.#clients.get(key) ?? { key, inFlight: 0, lastSeen: now, requests: 0, items: 0, fromStore: 0 };
    client.inFlight += 1;
    client.requests += 1;
    client.lastSeen = now;
    this.#clients.set(key, client);
  }

  /** A request of `key` is answered: `items` of them with a chunk, `fromStore` of those from the store. */
  end(key: string, now: number, items: number, fromStore: number): void {
    const client = this.#clients.get(key);
    if (!client) return;
    client.inFlight -= 1;
    client.lastSeen = now;
    client.items += items;
    client.fromStore += fromStore;
    this.#items += items;
    this.#fromStore += fromStore;
  }

  /** Data requests being answered now, every key's. */
  get inFlight(): number {
    let calls = 0;
    for (const client of this.#clients.values()) calls += client.inFlight;
    return calls;
  }

  refused(refusal: Refusal): void {
    this.#refusals = [refusal, ...this.#refusals].slice(0, REFUSALS_KEPT);
  }

  snapshot(now: number): ActivitySnapshot {
    for (const [key, client] of this.#clients)
      if (client.inFlight === 0 && now - client.lastSeen > GATEWAY_WAITS.activeForMs) this.#clients.delete(key);
    const active = [...this.#clients.values()].map((client) => ({ ...client })).sort((a, b) => (a.key < b.key ? -1 : 1));
    return { active, items: this.#items, fromStore: this.#fromStore, refusals: this.#refusals };
  }
}
