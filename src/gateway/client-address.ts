import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** An address as written, IPv4 given as IPv6 (`::ffff:10.0.0.7`) read as the IPv4 it is. */
function plainAddress(address: string): string {
  const bare = address.trim().replace(/^\[(.*)\]$/, '$1');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  return (mapped ? mapped[1]! : bare).toLowerCase();
}

/** Why `--trust-proxy` cannot be read, or undefined: it names addresses, not host names or networks. */
export function trustedProxiesProblem(addresses: readonly string[]): string | undefined {
  const wrong = addresses.find((address) => isIP(plainAddress(address)) === 0);
  return wrong === undefined
    ? undefined
    : `--trust-proxy takes the IP addresses of the proxies in front of the gateway, comma-separated; "${wrong}" is not one`;
}

/**
 * Who sent a request: the socket's address, unless that is a proxy the operator trusts
 * (`--trust-proxy`); then X-Forwarded-For, read from its end (the nearest hop) past every trusted
 * proxy, names the client. Anything before the first untrusted hop was written by the client
 * itself, so it is never believed. Used for the login throttle, the log and the status page.
 */
export function clientAddressOf(request: IncomingMessage, trusted: ReadonlySet<string>): string {
  const socket = plainAddress(request.socket.remoteAddress ?? 'unknown');
  if (!trusted.has(socket)) return socket;
  const forwarded = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').map(plainAddress).filter(Boolean);
  let client = socket;
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    // A hop that is no address (a proxy's "unknown", or garbage) ends what can be believed.
    if (isIP(hops[i]!) === 0) break;
    client = hops[i]!;
    if (!trusted.has(client)) break;
  }
  return client;
}

/** The set `clientAddressOf` takes, from `--trust-proxy`'s addresses. */
export function trustedProxies(addresses: readonly string[] = []): ReadonlySet<string> {
  return new Set(addresses.map(plainAddress));
}
