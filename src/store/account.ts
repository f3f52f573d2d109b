import { createHmac } from 'node:crypto';

/**
 * A fixed label, not a secret: it only makes the fingerprint propdata's own, so it matches no
 * plain hash of the key found elsewhere. Changing it would orphan every stored answer.
 */
const FINGERPRINT_LABEL = 'propdata account fingerprint v1';

/**
 * The in-process sandbox (`--sandbox`) listens on a new port each time and always takes the same
 * key: one account whatever the port, so its answers can be reused like any other.
 */
export const SANDBOX_ACCOUNT = 'sandbox (built in)';

/**
 * The partition that answers, spend and limits are kept under: the base URL plus a one-way
 * fingerprint of the API key, so test keys, the sandbox and live answers never mix. Neither the key
 * nor the secret is kept: a changed secret is the same account, and the store holds nothing that
 * could authenticate.
 */
export function accountId(baseUrl: URL, key: string): string {
  const fingerprint = createHmac('sha256', FINGERPRINT_LABEL).update(key).digest('hex').slice(0, 16);
  return `${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, '')} key:${fingerprint}`;
}

/** The account of a resolved connection, or the sandbox's. */
export function accountOf(connection: { baseUrl: URL; key: string }, sandbox: boolean): string {
  return sandbox ? SANDBOX_ACCOUNT : accountId(connection.baseUrl, connection.key);
}
