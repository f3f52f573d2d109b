import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ForwardProxy {
  /** `http://127.0.0.1:PORT`, as HTTP_PROXY and HTTPS_PROXY take it. */
  url: string;
  /** Each CONNECT it was asked for, `host:port`, in order. */
  tunnels: string[];
  /** Requests sent to it in absolute form (`GET http://host/path`), which it refuses with a 502. */
  plain: string[];
  /** The Proxy-Authorization headers it was sent, with the tunnels. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A forward proxy on 127.0.0.1 as companies run them: a CONNECT opens a tunnel to the host and
 * port asked for, and what goes through it is counted.
 */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const tunnels: string[] = [];
  const plain: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    plain.push(`${request.method ?? ''} ${request.url ?? ''}`);
    response.writeHead(502).end();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(request.url ?? '');
    authorizations.push(request.headers['proxy-authorization']);
    const [, host, port] = /^\[?(.*?)\]?:(\d+)$/.exec(request.url ?? '') ?? [];
    const upstream = connect(Number(port), host ?? '', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    plain,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
