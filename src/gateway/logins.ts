import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { basicCredentials } from '../wire/basic-auth.js';
import type { ClientKey } from '../store/key-store.js';
import type { Clock } from '../throttle/clock.js';
import type { KeyRing } from './key-ring.js';
import type { LoginThrottle } from './login-throttle.js';

/** The user name of the status page's login; its password is the admin key. */
export const ADMIN_USER = 'admin';

/** A login's outcome: the key it opens, or why not (`none`: no credentials were given, which is no guess). */
export type Login<T> = { ok: T } | { refused: 'none' | 'wrong' };

/**
 * Who a request is: a client key's holder (the service's API), or the operator (the status page,
 * with the admin key). Wrong credentials slow their address down (LoginThrottle): a request from it
 * waits before its own are checked. Missing ones do not: a browser asks for the page once without
 * them, to be told to log in.
 */
export class Logins {
  readonly #ring: KeyRing;
  readonly #throttle: LoginThrottle;
  readonly #clock: Clock;
  readonly #digestKey = randomBytes(32);
  readonly #adminDigest: Buffer;

  constructor(ring: KeyRing, throttle: LoginThrottle, adminKey: string, clock: Clock) {
    this.#ring = ring;
    this.#throttle = throttle;
    this.#clock = clock;
    this.#adminDigest = this.#digest(adminKey);
  }

  #digest(text: string): Buffer {
    return createHmac('sha256', this.#digestKey).update(text).digest();
  }

  async #check<T>(request: IncomingMessage, open: (key: string, secret: string) => Promise<T | undefined>): Promise<Login<T>> {
    const given = basicCredentials(request.headers.authorization);
    if (!given) return { refused: 'none' };
    const address = request.socket.remoteAddress ?? 'unknown';
    const delay = this.#throttle.delayMs(address, this.#clock.now());
    if (delay > 0) await this.#clock.sleep(delay);
    const opened = await open(given.key, given.secret);
    if (opened === undefined) {
      this.#throttle.failed(address, this.#clock.now());
      return { refused: 'wrong' };
    }
    this.#throttle.succeeded(address);
    return { ok: opened };
  }

  /** The client key a data request's credentials open. */
  client(request: IncomingMessage): Promise<Login<ClientKey>> {
    return this.#check(request, (key, secret) => this.#ring.authenticate(key, secret));
  }

  /** Whether a status request carries the admin key (user `admin`), compared in constant time. */
  admin(request: IncomingMessage): Promise<Login<true>> {
    return this.#check(request, (user, password) =>
      Promise.resolve(user === ADMIN_USER && timingSafeEqual(this.#digest(password), this.#adminDigest) ? true : undefined),
    );
  }
}
