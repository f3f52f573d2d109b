import { ConfigError } from '../errors/index.js';

/** Where a store is, when it is not a file: a PostgreSQL database (libpq's two spellings of the scheme). */
const DATABASE_URL = /^postgres(ql)?:\/\//i;

/** Query parameters that may hold a password (node-postgres reads `password` from the query too). */
const SECRET_PARAMS = ['password', 'sslpassword'];

/** Whether a --store (PROPDATA_STORE, config `store`) names a PostgreSQL database rather than a file. */
export function isDatabaseUrl(store: string): boolean {
  return DATABASE_URL.test(store);
}

/** The URL, or a ConfigError that shows the text without anything that may be its password. */
export function parseDatabaseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new ConfigError(
      `the store "${text.replace(/\/\/[^/]*@/, '//****@')}" is not a URL: give it as postgres://user@host[:port]/database`,
      'E_STORE_URL',
    );
  }
}

/**
 * A database URL as messages, `store info` and the spend log may show it: its password gone (from
 * the user info and the query), the rest as given. A text that does not parse loses everything up
 * to its last "@", where a password would be.
 */
export function withoutPassword(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    const at = text.lastIndexOf('@');
    return at < 0 ? text : `${/^[a-z][a-z\d+.-]*:\/\//i.exec(text)?.[0] ?? ''}****@${text.slice(at + 1)}`;
  }
  if (!carriesPassword(url)) return text;
  url.password = '';
  for (const name of SECRET_PARAMS) url.searchParams.delete(name);
  return url.toString();
}

const carriesPassword = (url: URL): boolean => url.password !== '' || SECRET_PARAMS.some((name) => url.searchParams.has(name));

/** Whether a --store names a database by a URL that holds a password (in its user info or its query). */
export function holdsPassword(store: string): boolean {
  if (!isDatabaseUrl(store)) return false;
  try {
    return carriesPassword(new URL(store));
  } catch {
    // Not a URL: refused as such when the store is opened.
    return false;
  }
}

/** A store's location as a message may show it: a file's path, or a database URL without its password. */
export function storeForMessages(location: string): string {
  return isDatabaseUrl(location) ? withoutPassword(location) : location;
}
