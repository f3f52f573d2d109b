import type { Readable, Writable } from 'node:stream';
import type { Clock } from '../throttle/clock.js';
import { Redactor } from '../client/credential-forms.js';

type Terminal = { isTTY?: boolean; columns?: number };

/**
 * The width of a terminal, which tables and help fit; undefined for anything else (a pipe, a
 * file), whose reader's own program wraps. A pseudo-terminal may report 0 columns (`script`,
 * `docker exec -t` before its first resize): it has no width to fit.
 */
export function terminalWidth(stream: Terminal): number | undefined {
  return stream.isTTY && (stream.columns ?? 0) > 0 ? stream.columns : undefined;
}

/**
 * A terminal that can take a spinner or a progress bar. One of 0 columns gets plain output: ora
 * divides by the width and then loops forever clearing Infinity lines.
 */
export function canAnimate(stream: Terminal): boolean {
  return terminalWidth(stream) !== undefined;
}

/** Everything main() touches outside itself, injected so tests can run it in-process. */
export interface Io {
  stdin: Readable & Terminal;
  stdout: Writable & Terminal;
  stderr: Writable & Terminal;
  env: Record<string, string | undefined>;
  /** Time for waits and pacing; tests pass a fake one. Default: the system clock. */
  clock?: Clock;
  /** Aborted by the first SIGINT, SIGTERM or SIGHUP, with a SignalStop naming it as the reason. */
  signal?: AbortSignal;
}

/**
 * stderr for humans. Every line goes through the redactor: once a credential is known it can
 * never be printed, whatever message carries it (a server echo, a library error, a URL).
 */
export class Messages {
  readonly #io: Io;
  readonly #redactor = new Redactor();
  verbose = false;
  quiet = false;

  constructor(io: Io) {
    this.#io = io;
  }

  /**
   * The secret and every form a server or a library could echo it in (the Basic token, the
   * `key:secret` pair). A public pair (the sandbox's "sandbox") is not added: every "--sandbox"
   * in a message would become "--****".
   */
  addCredentials(key: string, secret: string): void {
    this.#redactor.add(key, secret);
  }

  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /** A line that always shows (errors, the summary's verdict). */
  error(text: string): void {
    this.#io.stderr.write(`${this.redact(text)}\n`);
  }

  /** Informational: silenced by --quiet. */
  info(text: string): void {
    if (!this.quiet) this.error(text);
  }

  debug(text: string): void {
    if (this.verbose) this.error(text);
  }
}
