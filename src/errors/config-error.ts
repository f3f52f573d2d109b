import { EXIT } from './exit-codes.js';
import { PropdataError } from './propdata-error.js';

/** Missing or unusable connection settings (no key, a plain-http remote base URL, a config file that cannot be read). Exit 2. */
export class ConfigError extends PropdataError {
  constructor(message: string, code = 'E_CONFIG') {
    super(code, message, { exitCode: EXIT.usage });
  }
}
