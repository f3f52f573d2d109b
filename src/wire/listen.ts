import type { AddressInfo, Server } from 'node:net';
import { UsageError } from '../errors/index.js';

/**
 * A port taken or a host that is not this machine's is the user's to fix: one line, exit 2.
 * `who` names the command in the message and the code (`sandbox`: E_SANDBOX_LISTEN).
 */
function listenFailure(error: NodeJS.ErrnoException, host: string, port: number, who: string): Error {
  const where = `${host}:${port}`;
  const code = `E_${who.toUpperCase()}_LISTEN`;
  if (error.code === 'EADDRINUSE') return new UsageError(`${who}: ${where} is in use; choose another --port (0 picks a free one)`, code);
  if (error.code === 'EACCES') return new UsageError(`${who}: not allowed to listen on ${where}; choose a --port above 1023`, code);
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return new UsageError(`${who}: cannot listen on ${where}: --host must be an address of this machine, such as 127.0.0.1`, code);
  }
  return error;
}

/** Starts `server` listening; resolves with the port it took (0 picks a free one). */
export async function listenOn(server: Server, host: string, port: number, who: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenFailure(error, host, port, who)));
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/**
 * The URL to reach a server listening on `host`. Listening on every interface (0.0.0.0, ::), the
 * URL for this machine is the loopback one, which propdata accepts over plain http (a wildcard
 * address is not one to connect to).
 */
export function urlOf(scheme: 'http' | 'https', host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `${scheme}://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
