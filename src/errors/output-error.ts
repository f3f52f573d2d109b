import { PropdataError } from './propdata-error.js';

/** The output cannot be written (disk full, permission denied, a closed pipe). */
export class OutputError extends PropdataError {
  constructor(message: string, cause?: unknown) {
    super('E_OUTPUT', message, { cause });
  }
}
