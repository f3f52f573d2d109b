import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { basicCredentials } from '../wire/basic-auth.js';
import { errorReply, type Reply } from '../wire/replies.js';
import type { ClientKey } from '../store/key-store.js';
import type { Clock } from '../throttle/clock.js';
import { LoginsBusy, type KeyRing } from './key-ring.js';
import type { LoginThrottle } from './login-throttle.js';

/** The user name of the status page's login; its password is the admin key. */
const ADMIN_USER = 'admin';

/**
 * Why a login failed: `none`, no credentials were given (no guess); `wrong`, they open nothing;
 * `flood`, wrong, with too many failures of the address held already; `busy`, not checked yet
 * (too many keys under an old hash being checked at once).
 */
export type Refused = 'none' | 'wrong' | 'flood' | 'busy';

/** A login's outcome: the key it opens, or why not. */
export type Login<T> = { ok: T } | { refused: Refused };

/** The answer to a refused login (a 401 as given, without a challenge unless `challenge` is); `what` names it in the refusals. */
export function refusalReply(refused: Refused, what: string, challenge: Record<string, string> = {}): { reply: Reply; refusal?: string } {
  if (refused === 'flood') {
    const reply = errorReply(429, 'too many failed logins from this address at once: wait, and check the key and secret', {
      'Retry-After': '10',
      Connection: 'close',
    });
    return { reply, refusal: `${what}, too many at once` };
  }
  if (refused === 'busy') return { reply: errorReply(503, new LoginsBusy().message, { 'Retry-After': '1' }), refusal: 'logins busy' };
  return { reply: { status: 401, headers: challenge }, ...(refused === 'wrong' ? { refusal: what } : {}) };
}

/**
 * Who a request is: a client key's holder (the service's API), or the operator (the status page,
 * with the admin key). Credentials are checked at once; only a wrong one waits, held back by its
 * address (LoginThrottle), so that another client's failures never slow a right secret down.
 */
export class Logins {
  readonly #ring: KeyRing;
  readonly #throttle: LoginThrottle;
  readonly #clock: Clock;
  readonly #addressOf: (request: IncomingMessage) => string;
  readonly #digestKey = randomBytes(32);
  readonly #adminDigest: Buffer;

  constructor(ring: KeyRing, throttle: LoginThrottle, adminKey: string, clock: Clock, addressOf: (request: IncomingMessage) => string) {
    this.#ring = ring;
    this.#throttle = throttle;
    this.#clock = clock;
    this.#addressOf = addressOf;
    this.#adminDigest = this.#digest(adminKey);
  }

  #digest(text: string): Buffer {
    return createHmac('sha256', this.#digestKey).update(text).digest();
  }

  async #check<T>(request: IncomingMessage, open: (key: string, secret: string) => Promise<T | undefined>): Promise<Login<T>> {
    const given = basicCredentials(request.headers.authorization);
    if (!given) return { refused: 'none' };
    let opened: T | undefined;
    try {
      opened = await open(given.key, given.secret);
    } catch (error) {
      if (error instanceof LoginsBusy) return { refused: 'busy' };
      throw error;
    }
    if (opened !== undefined) return { ok: opened };
    const address = this.#addressOf(request);
    const hold = this.#throttle.hold(address, this.#clock.now());
    if (hold === undefined) return { refused: 'flood' };
    try {
      if (hold > 0) await this.#clock.sleep(hold);
    } finally {
      this.#throttle.release(address);
    }
    return { refused: 'wrong' };
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
