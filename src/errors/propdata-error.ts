/**
 * Base of every fatal condition. `code` is stable (scripts and tests match on it); `message` is the
 * one line a user reads. Per-item failures are never thrown: they are output records. What exit
 * code a condition means is the CLI's (cli/exit-codes.ts): a library caller has no process to exit.
 */
export class PropdataError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}
