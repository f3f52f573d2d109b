import type { ClientRequestArgs, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** Where a tunnel leads: the service's host and port, and whether TLS runs inside it. */
export interface TunnelTarget {
  hostname: string;
  port: number;
  tls: boolean;
}

/** What node's http.request takes as `createConnection`: a socket handed over through `done`, later. */
type CreateConnection = NonNullable<ClientRequestArgs['createConnection']>;

/** The Proxy-Authorization of a proxy URL's user and password (`http://user:pass@proxy:3128`), if it has them. */
function proxyAuthorization(proxy: URL): Record<string, string> {
  if (proxy.username === '' && proxy.password === '') return {};
  const pair = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(pair).toString('base64')}` };
}

/**
 * A one-off's connection through a forward proxy, as undici's ProxyAgent makes a batch's: a
 * CONNECT to the proxy for `host:port`, then TLS inside the tunnel for an https service (its
 * certificate verified against the service's name, not the proxy's). `createConnection` hands the
 * ready socket to node's http.request; `cancel` drops a tunnel still being made (a deadline, an
 * abort), so that a silent proxy keeps nothing open.
 */
export async function tunnelThrough(proxy: URL, target: TunnelTarget): Promise<{ createConnection: CreateConnection; cancel(): void }> {
  const { request } = proxy.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const { connect: tlsConnect } = target.tls ? await import('node:tls') : { connect: undefined };
  let cancelled = false;
  let connecting: ReturnType<typeof request> | undefined;
  let tunnelled: Socket | undefined;
  const authority = `${target.hostname.includes(':') ? `[${target.hostname}]` : target.hostname}:${target.port}`;

  const createConnection: CreateConnection = (_options, done) => {
    // Node takes a failure as the error alone (its types ask for a socket beside it).
    const fail = done as (error: Error) => void;
    connecting = request({
      protocol: proxy.protocol,
      hostname: proxy.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...proxyAuthorization(proxy) },
      agent: false,
    });
    connecting.once('connect', (answer: IncomingMessage, socket: Socket) => {
      tunnelled = socket;
      if (cancelled) {
        socket.destroy();
        return;
      }
      if (answer.statusCode !== 200) {
        socket.destroy();
        fail(
          new Error(`the proxy ${proxy.host} refused the tunnel to ${authority}: ${answer.statusCode ?? 0} ${answer.statusMessage ?? ''}`),
        );
        return;
      }
      if (!tlsConnect) {
        done(null, socket);
        return;
      }
      const isName = !/^[\d.]+$|:/.test(target.hostname);
      const secured = tlsConnect({ socket, host: target.hostname, ...(isName ? { servername: target.hostname } : {}) });
      secured.once('secureConnect', () => done(null, secured));
      secured.once('error', fail);
    });
    connecting.once('error', fail);
    connecting.end();
    return undefined;
  };
  return {
    createConnection,
    cancel: () => {
      cancelled = true;
      connecting?.destroy();
      tunnelled?.destroy();
    },
  };
}
