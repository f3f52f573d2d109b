/** The `Authorization` header of HTTP Basic for `key` and `secret`, as the service asks its clients to send it. */
export function basicAuthorization(key: string, secret: string): string {
  return `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
}

/** The key and secret of an HTTP Basic `Authorization` header, or undefined when it is not one. */
export function basicCredentials(header: string | undefined): { key: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}
