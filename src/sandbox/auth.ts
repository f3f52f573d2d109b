/** What a request's credentials open: everything, or only the test list. */
export type Access = 'full' | 'test';

/** The prefix that turns the configured key into its test key: `test_sandbox` for `sandbox`. */
export const TEST_KEY_PREFIX = 'test_';

/**
 * HTTP Basic credentials checked against the configured pair. The test key is the configured key
 * with the prefix, with the same secret. Undefined means 401.
 */
export function authenticate(header: string | undefined, key: string, secret: string): Access | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const [givenKey, givenSecret] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
  if (givenSecret !== secret) return undefined;
  if (givenKey === key) return 'full';
  if (givenKey === `${TEST_KEY_PREFIX}${key}`) return 'test';
  return undefined;
}
