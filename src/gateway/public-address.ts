import { hostname, networkInterfaces } from 'node:os';

/** Whether `host` means every interface of this machine. */
export const isWildcardHost = (host: string) => ['0.0.0.0', '::', '[::]'].includes(host);

/**
 * What clients on other machines should use to reach a gateway listening on every interface: the
 * machine's name (what its certificate most likely names), and its addresses on the network
 * (loopback and link-local ones left out: no other machine reaches those).
 */
export function addressesForClients(scheme: 'http' | 'https', port: number): { byName: string; byAddress: string[] } {
  const addresses = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal && !entry.address.startsWith('fe80:'))
    .map((entry) => (entry.family === 'IPv6' ? `[${entry.address}]` : entry.address));
  return { byName: `${scheme}://${hostname()}:${port}`, byAddress: addresses.map((address) => `${scheme}://${address}:${port}`) };
}
