import { GATEWAY_DOOR, GATEWAY_WAITS } from '../policy/policy.js';

/** How failed logins are slowed down: every default, with its reason. */
export interface LoginThrottlePolicy {
  /** The hold on a client address's second failure (its first is answered at once: a typo costs nothing)... */
  firstDelayMs: number;
  /** ...doubled with each further one, up to this: guessing a 256-bit secret is hopeless, and this makes trying it slow too. */
  maxDelayMs: number;
  /** An address whose last failure is this old starts afresh. */
  forgetAfterMs: number;
  /** Addresses remembered at most (the oldest failure goes first): a scan from many addresses cannot grow memory. */
  maxAddresses: number;
  /** Failures held back at once from one address, and from all: past them a failure is refused at once, its connection closed. */
  heldPerAddress: number;
  held: number;
}

// Exported for test/gateway/login-throttle.test.ts, which varies these settings.
export const LOGIN_THROTTLE: LoginThrottlePolicy = {
  firstDelayMs: GATEWAY_WAITS.loginFirstDelayMs,
  maxDelayMs: GATEWAY_WAITS.loginMaxDelayMs,
  forgetAfterMs: GATEWAY_WAITS.loginForgetAfterMs,
  maxAddresses: 10_000,
  heldPerAddress: GATEWAY_DOOR.heldFailuresPerAddress,
  held: GATEWAY_DOOR.heldFailures,
};

interface Failures {
  count: number;
  lastAt: number;
  /** Of this address's failed logins, those whose answer is being held back now. */
  held: number;
}

/**
 * Failed logins, per client address (the socket's, or the one a trusted proxy names: client-address.ts).
 * Only failures wait: credentials are checked at once (microseconds), a right one goes through
 * whatever else its address or anyone sent, and a wrong one's 401 is held back, longer after each
 * failure of its address. So a client with a wrong secret behind the same proxy or NAT as others
 * slows only its own failures, and a success (anyone's) clears nothing an attacker could reset.
 * What a flood can make the gateway hold is bounded: a few held answers an address, a few thousand
 * in all, each a timer; past that a failure is answered 429 at once and its connection closed.
 */
export class LoginThrottle {
  readonly #policy: LoginThrottlePolicy;
  /** In order of last failure (a Map keeps insertion order): the first is the one to forget. */
  readonly #failures = new Map<string, Failures>();
  #held = 0;

  constructor(policy: LoginThrottlePolicy = LOGIN_THROTTLE) {
    this.#policy = policy;
  }

  /**
   * A login from `address` failed at `now`: how long its answer is held back (give it back with
   * `release` once answered), or undefined when too many are held already (answer it at once, 429).
   */
  hold(address: string, now: number): number | undefined {
    const earlier = this.#failures.get(address);
    const live = earlier && now - earlier.lastAt < this.#policy.forgetAfterMs ? earlier : undefined;
    const held = earlier?.held ?? 0;
    if (held >= this.#policy.heldPerAddress || this.#held >= this.#policy.held) return undefined;
    const count = (live?.count ?? 0) + 1;
    this.#failures.delete(address);
    this.#failures.set(address, { count, lastAt: now, held: held + 1 });
    this.#held += 1;
    this.#forgetOldest();
    return count === 1 ? 0 : Math.min(this.#policy.maxDelayMs, this.#policy.firstDelayMs * 2 ** (count - 2));
  }

  /** A held failure of `address` has been answered. */
  release(address: string): void {
    this.#held -= 1;
    const failures = this.#failures.get(address);
    if (failures) failures.held -= 1;
  }

  /** Past maxAddresses, the address whose last failure is oldest and that holds nothing now is forgotten. */
  #forgetOldest(): void {
    if (this.#failures.size <= this.#policy.maxAddresses) return;
    for (const [address, failures] of this.#failures) {
      if (failures.held > 0) continue;
      this.#failures.delete(address);
      return;
    }
  }

  /** Addresses whose failures are being slowed down now, for the status page. */
  addresses(now: number): number {
    let slowed = 0;
    for (const failures of this.#failures.values()) if (now - failures.lastAt < this.#policy.forgetAfterMs) slowed += 1;
    return slowed;
  }

  /** Failed logins whose answer is held back now. */
  get held(): number {
    return this.#held;
  }
}
