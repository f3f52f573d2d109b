import { EXIT } from './exit-codes.js';

/**
 * Base of every fatal condition. `code` is stable (scripts and tests match on it); `message` is the
 * one line a user reads; `exitCode` is what the process exits with. Per-item failures are never
 * thrown: they are output records.
 */
export class PropdataError extends Error {
  readonly code: string;
  readonly exitCode: number;

  constructor(code: string, message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = options.exitCode ?? EXIT.fatal;
  }
}
