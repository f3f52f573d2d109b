/** What a request's credentials open: everything, or only the test list. */
export type Access = 'full' | 'test';

/** The prefix that turns the configured key into its test key: `test_sandbox` for `sandbox`. */
export const TEST_KEY_PREFIX = 'test_';

/** The key and secret of an HTTP Basic `Authorization` header, or undefined when it is not one. */
export function basicCredentials(header: string | undefined): { key: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

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
