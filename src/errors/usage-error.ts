import { PropdataError } from './propdata-error.js';

/** The command line itself is wrong: unknown endpoint, bad flag value, missing identifier. The CLI exits 2. */
export class UsageError extends PropdataError {
  constructor(message: string, code = 'E_USAGE') {
    super(code, message);
  }
}
