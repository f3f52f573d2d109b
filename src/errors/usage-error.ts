import { EXIT } from './exit-codes.js';
import { PropdataError } from './propdata-error.js';

/** The command line itself is wrong: unknown endpoint, bad flag value, missing identifier. Exit 2. */
export class UsageError extends PropdataError {
  constructor(message: string, code = 'E_USAGE') {
    super(code, message, { exitCode: EXIT.usage });
  }
}
