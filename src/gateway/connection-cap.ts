import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * At most `max` connections open: past it, a new connection closes the one idle longest (one
 * that is not in the middle of a request: never sent one, or between two of its keep-alive
 * requests), so that idle sockets, however many are opened, cannot keep a new client out or
 * use up the process's file descriptors. When every connection is mid-request, the new one is
 * closed instead. Node's own `server.maxConnections` would refuse the newcomer, whoever holds the rest.
 */
export function capConnections(server: Server, max: number): { open(): number } {
  /** Idle connections in the order they became idle (a Set keeps insertion order): the first goes first. */
  const idle = new Set<Socket>();
  const busy = new Set<Socket>();
  // Counted as they are accepted, before a TLS handshake: a connection that never completes one holds a descriptor too.
  server.on('connection', (socket: Socket) => {
    if (idle.size + busy.size >= max) {
      const oldest = idle.values().next().value;
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      idle.delete(oldest);
      oldest.destroy();
    }
    idle.add(socket);
    socket.once('close', () => {
      idle.delete(socket);
      busy.delete(socket);
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = tcpSocketOf(request.socket);
    if (!idle.delete(socket)) return;
    busy.add(socket);
    response.once('finish', () => {
      if (!busy.delete(socket) || socket.destroyed) return;
      idle.add(socket);
    });
  });
  return { open: () => idle.size + busy.size };
}

/** The TCP socket under a request's: a TLS socket's `_parent` (Node's, undocumented), else the socket itself. */
function tcpSocketOf(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket })._parent ?? socket;
}
