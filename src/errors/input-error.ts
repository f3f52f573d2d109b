import { PropdataError } from './propdata-error.js';

/**
 * The input cannot be read any further (unclosed quote, not a CSV at all). Carries the position so
 * the message can say where. Rows that are merely invalid are not errors: they become records.
 */
export class InputError extends PropdataError {
  readonly line: number | undefined;
  readonly record: number | undefined;

  constructor(code: string, message: string, context: { line?: number; record?: number; cause?: unknown } = {}) {
    super(code, message, { cause: context.cause });
    this.line = context.line;
    this.record = context.record;
  }
}
