import { PropdataError } from './propdata-error.js';

/** Missing or unusable connection settings (no key, a plain-http remote base URL, a config file that cannot be read). The CLI exits 2. */
export class ConfigError extends PropdataError {
  constructor(message: string, code = 'E_CONFIG') {
    super(code, message);
  }
}
