import { createHash } from 'node:crypto';
import type { Endpoint } from '../catalog/index.js';

export interface SandboxUsage {
  components: number;
  requests: number;
  /** USD. */
  charged: number;
  creditLeft: number;
  byEndpoint: Record<string, { components: number; charged: number }>;
  /**
   * Sections charged for an item (identifiers and the endpoint's own parameters) the account had
   * already been charged for: what a client that kept its answers would not have bought again.
   */
  chargedAgain: { sections: number; usd: number };
}

/** A section the service delivered: its endpoint, and what identifies the item it answers. */
export interface DeliveredSection {
  endpoint: Endpoint;
  /** The item's identifiers and the endpoint's own parameters, as one comparable text. */
  subject: string;
}

/** Money is kept in micro-dollars so that thousands of 0.01 charges add up exactly. */
const MICRO = 1_000_000;
const toMicro = (usd: number) => Math.round(usd * MICRO);
const toUsd = (micro: number) => micro / MICRO;

/** The organisation's credit and what it has been charged: list price per delivered section. */
export class Ledger {
  #creditMicro: number;
  #chargedMicro = 0;
  #components = 0;
  #requests = 0;
  readonly #byEndpoint = new Map<string, { components: number; chargedMicro: number }>();
  /** Every section charged so far, as a 128-bit digest: a few dozen bytes each, even over millions. */
  readonly #charged = new Set<string>();
  #chargedAgain = 0;
  #chargedAgainMicro = 0;

  readonly #prices: Readonly<Record<string, number>>;

  constructor(creditUsd: number, prices: Readonly<Record<string, number>>) {
    this.#prices = prices;
    this.#creditMicro = toMicro(creditUsd);
  }

  #priceOf(endpoint: Endpoint): number {
    return toMicro(this.#prices[endpoint.name] ?? endpoint.price);
  }

  /** What the delivered (api_code 0) sections cost at list price. */
  costOf(delivered: readonly DeliveredSection[]): number {
    return delivered.reduce((sum, { endpoint }) => sum + this.#priceOf(endpoint), 0);
  }

  canAfford(costMicro: number): boolean {
    return costMicro <= this.#creditMicro;
  }

  /** Records one answered request: every requested section counts as a component, delivered ones are charged. */
  record(requested: readonly Endpoint[], delivered: readonly DeliveredSection[]): void {
    this.#requests += 1;
    this.#components += requested.length;
    for (const endpoint of requested) this.#entry(endpoint).components += 1;
    for (const { endpoint, subject } of delivered) {
      const price = this.#priceOf(endpoint);
      this.#entry(endpoint).chargedMicro += price;
      this.#chargedMicro += price;
      this.#creditMicro -= price;
      const digest = createHash('md5').update(endpoint.name).update('\n').update(subject).digest('base64');
      if (this.#charged.has(digest)) {
        this.#chargedAgain += 1;
        this.#chargedAgainMicro += price;
      } else {
        this.#charged.add(digest);
      }
    }
  }

  #entry(endpoint: Endpoint) {
    let entry = this.#byEndpoint.get(endpoint.name);
    if (!entry) this.#byEndpoint.set(endpoint.name, (entry = { components: 0, chargedMicro: 0 }));
    return entry;
  }

  usage(): SandboxUsage {
    return {
      components: this.#components,
      requests: this.#requests,
      charged: toUsd(this.#chargedMicro),
      creditLeft: toUsd(this.#creditMicro),
      byEndpoint: Object.fromEntries(
        [...this.#byEndpoint].map(([name, entry]) => [name, { components: entry.components, charged: toUsd(entry.chargedMicro) }]),
      ),
      chargedAgain: { sections: this.#chargedAgain, usd: toUsd(this.#chargedAgainMicro) },
    };
  }
}
