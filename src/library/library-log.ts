import { Redactor } from '../client/credential-forms.js';
import type { EngineLog } from '../engine/engine-log.js';

/** Where a client's notes go: `console` will do; each method is optional, and nothing is logged without one. */
export interface Logger {
  /** Each request and each retry. */
  debug?(message: string): void;
  /** Notes worth a glance. */
  info?(message: string): void;
  /** Something went wrong that did not stop the work (a store that failed as it closed). */
  warn?(message: string): void;
}

/** The engine's log over a caller's logger: every line redacted of the client's credentials first. */
export class LibraryLog implements EngineLog {
  readonly #logger: Logger | undefined;
  readonly #redactor = new Redactor();

  constructor(logger: Logger | undefined) {
    this.#logger = logger;
  }

  addCredentials(key: string, secret: string): void {
    this.#redactor.add(key, secret);
  }

  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  debug(text: string): void {
    this.#logger?.debug?.(this.redact(text));
  }

  info(text: string): void {
    this.#logger?.info?.(this.redact(text));
  }

  warn(text: string): void {
    this.#logger?.warn?.(this.redact(text));
  }
}
