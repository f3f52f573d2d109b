import { isLoopbackHost } from '../config/connection.js';

/**
 * Why the gateway may not listen as asked, or undefined. Off this machine, clients send their keys
 * and secrets with every request and get the account's answers back: that needs TLS, or the
 * operator's word that the network is trusted (`--insecure-plain-http`: a private link, or TLS
 * ended by a proxy in front).
 */
export function listeningProblem(host: string, tls: { cert?: string; key?: string }, insecurePlainHttp: boolean): string | undefined {
  if ((tls.cert === undefined) !== (tls.key === undefined))
    return 'give --tls-cert and --tls-key together: the certificate and its private key';
  if (tls.cert !== undefined || isLoopbackHost(host) || insecurePlainHttp) return undefined;
  return `--host ${host} is reachable from other machines, where keys, secrets and answers would travel in the clear: give --tls-cert and --tls-key to serve HTTPS, or --insecure-plain-http if the network is trusted (a proxy in front ends TLS)`;
}
