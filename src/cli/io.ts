import type { Readable, Writable } from 'node:stream';

type Terminal = { isTTY?: boolean; columns?: number };

/**
 * A terminal that can take a spinner or a progress bar. A pseudo-terminal may report 0 columns
 * (`script`, `docker exec -t` before its first resize): ora divides by the width and then loops
 * forever clearing Infinity lines, so such a terminal gets plain output instead.
 */
export function canAnimate(stream: Terminal): boolean {
  return Boolean(stream.isTTY) && (stream.columns ?? 0) > 0;
}

/** Everything main() touches outside itself, injected so tests can run it in-process. */
export interface Io {
  stdin: Readable & Terminal;
  stdout: Writable & Terminal;
  stderr: Writable & Terminal;
  env: Record<string, string | undefined>;
  /** Aborted on the first Ctrl-C (SIGINT); the bin wires it to the process. */
  signal?: AbortSignal;
}

/**
 * stderr for humans. Every line goes through the redactor: once a credential is known it can
 * never be printed, whatever message carries it (a server echo, a library error, a URL).
 */
export class Messages {
  readonly #io: Io;
  readonly #secrets = new Set<string>();
  verbose = false;
  quiet = false;

  constructor(io: Io) {
    this.#io = io;
  }

  addSecret(value: string): void {
    if (value.length >= 3) this.#secrets.add(value);
  }

  redact(text: string): string {
    let clean = text;
    for (const secret of this.#secrets) clean = clean.split(secret).join('****');
    return clean;
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
