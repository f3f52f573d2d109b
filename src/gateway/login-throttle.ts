import { GATEWAY_WAITS } from '../policy/policy.js';

/** How failed logins are slowed down: every default, with its reason. */
export interface LoginThrottlePolicy {
  /** The wait after a client address's first failure... */
  firstDelayMs: number;
  /** ...doubled with each further one, up to this: guessing a 256-bit secret is hopeless, and this makes trying it slow too. */
  maxDelayMs: number;
  /** An address whose last failure is this old starts afresh. */
  forgetAfterMs: number;
  /** Addresses remembered at most (the oldest failure goes first): a scan from many addresses cannot grow memory. */
  maxAddresses: number;
}

export const LOGIN_THROTTLE: LoginThrottlePolicy = {
  firstDelayMs: GATEWAY_WAITS.loginFirstDelayMs,
  maxDelayMs: GATEWAY_WAITS.loginMaxDelayMs,
  forgetAfterMs: GATEWAY_WAITS.loginForgetAfterMs,
  maxAddresses: 10_000,
};

interface Failures {
  count: number;
  lastAt: number;
}

/**
 * Failed logins, per client address: a request from an address whose credentials failed is held
 * back before its own are checked, longer after each failure, so that guessing runs at a few
 * tries a minute. A success from the address clears it. The wait costs the gateway a timer, not
 * a scrypt check.
 */
export class LoginThrottle {
  readonly #policy: LoginThrottlePolicy;
  /** In order of last failure (a Map keeps insertion order): the first is the one to forget. */
  readonly #failures = new Map<string, Failures>();

  constructor(policy: LoginThrottlePolicy = LOGIN_THROTTLE) {
    this.#policy = policy;
  }

  /** How long a request from `address` waits at `now` before its credentials are checked. */
  delayMs(address: string, now: number): number {
    const failures = this.#failures.get(address);
    if (!failures) return 0;
    if (now - failures.lastAt >= this.#policy.forgetAfterMs) {
      this.#failures.delete(address);
      return 0;
    }
    const wait = Math.min(this.#policy.maxDelayMs, this.#policy.firstDelayMs * 2 ** (failures.count - 1));
    return Math.max(0, failures.lastAt + wait - now);
  }

  failed(address: string, now: number): void {
    const earlier = this.#failures.get(address);
    const count = earlier && now - earlier.lastAt < this.#policy.forgetAfterMs ? earlier.count + 1 : 1;
    this.#failures.delete(address);
    this.#failures.set(address, { count, lastAt: now });
    if (this.#failures.size > this.#policy.maxAddresses) this.#failures.delete(this.#failures.keys().next().value!);
  }

  succeeded(address: string): void {
    this.#failures.delete(address);
  }

  /** Addresses slowed down now, for the status page. */
  get addresses(): number {
    return this.#failures.size;
  }
}
