import { basicCredentials } from '../wire/basic-auth.js';

/** What a request's credentials open: everything, or only the test list. */
export type Access = 'full' | 'test';

/** The prefix that turns the configured key into its test key: `test_sandbox` for `sandbox`. */
export const TEST_KEY_PREFIX = 'test_';

/**
 * HTTP Basic credentials checked against the configured pair. The test key is the configured key
 * with the prefix, with the same secret. Undefined means 401.
 */
export function authenticate(header: string | undefined, key: string, secret: string): Access | undefined {
  const given = basicCredentials(header);
  if (!given) return undefined;
  const { key: givenKey, secret: givenSecret } = given;
  if (givenSecret !== secret) return undefined;
  if (givenKey === key) return 'full';
  if (givenKey === `${TEST_KEY_PREFIX}${key}`) return 'test';
  return undefined;
}
