import type { IncomingHttpHeaders } from 'node:http';
import type { Connection } from '../config/connection.js';
import { NetworkError, RequestAbortedError } from '../errors/index.js';
import { credentialForms, innermostForms, mayHoldCredential, redactForms } from './credential-forms.js';
import { redactAnswer } from './redact-answer.js';
import { DEFAULT_TIMEOUTS, type Timeouts } from '../policy/policy.js';
import type { Exchange, Transport } from './transport.js';
import { basicAuthorization } from '../wire/basic-auth.js';
import { JSON_CONTENT_TYPE } from '../wire/content-type.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** As received, but for the request's credentials, redacted wherever they were echoed (redact-answer.ts). */
  body: string;
  elapsedMs: number;
  /**
   * Scrubs this request's credentials from text derived from the body: a server that echoes the
   * Authorization header in an error must not put it into an output cell, a report or stderr.
   */
  redact(text: string): string;
}

export interface ServiceRequest {
  method: 'GET' | 'POST';
  /** `v2/property/value`, no leading slash. */
  path: string;
  query?: Record<string, string | number>;
  items?: readonly Record<string, unknown>[];
  /** Cancels the request wherever it is: send() then rejects with RequestAbortedError. */
  signal?: AbortSignal;
  /** This request's deadline in ms, when not the client's (Timeouts.responseMs): a library call's `timeout`. */
  timeoutMs?: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  items: number;
  status: number | 'network error';
  elapsedMs: number;
  headers: Record<string, string>;
}

export interface ClientOptions {
  userAgent: string;
  /** The deadline a transport is given for each exchange; the same as the transport was made with. */
  timeouts?: Timeouts;
  /** Called after every attempt, for --verbose. Never receives the Authorization header. */
  onRequest?: (entry: RequestLogEntry) => void;
  /**
   * The sandbox's pair is printed by `propdata sandbox` and is no secret: redacting "sandbox" would
   * garble any answer or message that has the word (as Messages leaves it alone).
   */
  publicCredentials?: boolean;
  /** The forward proxy the transport goes through (config/proxy.ts proxyLabel: no password), named in a network failure. */
  proxy?: string;
}

/** The service, as its callers need it: one attempt per call. A fake stands in for it in tests. */
export interface Service {
  send(request: ServiceRequest): Promise<RawResponse>;
}

/**
 * One attempt per call: no retry, no interpretation of the status. What to do after a failure is
 * the retry policy's (retry-policy.ts), for one-offs and batches alike.
 */
export class ServiceClient implements Service {
  readonly #transport: Transport;
  readonly #basePath: string;
  readonly #authorization: string;
  readonly #forms: readonly string[];
  readonly #innermost: readonly string[];
  readonly #redact: (text: string) => string;
  readonly #timeouts: Timeouts;
  readonly #options: ClientOptions;
  /** The base URL's host, named when it cannot be reached. */
  readonly #host: string;

  /** `transport` reaches `connection.baseUrl`'s origin: a batch's pool or a one-off's connection. */
  constructor(connection: Connection, transport: Transport, options: ClientOptions) {
    this.#timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
    this.#transport = transport;
    this.#basePath = connection.baseUrl.pathname.replace(/\/+$/, '');
    this.#host = connection.baseUrl.host;
    this.#authorization = basicAuthorization(connection.key, connection.secret);
    const forms = options.publicCredentials ? [] : credentialForms(connection.key, connection.secret);
    this.#forms = forms;
    this.#innermost = innermostForms(forms);
    this.#redact = (text) => redactForms(text, forms);
    this.#options = options;
  }

  /**
   * Rejects with NetworkError (retryable; `mayHaveBeenCharged` says whether the request had gone
   * out) when no complete answer came within the timeout, or RequestAbortedError when
   * `request.signal` cancelled it.
   */
  async send(request: ServiceRequest): Promise<RawResponse> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) search.set(name, String(value));
    const query = search.size > 0 ? `?${search.toString()}` : '';
    const path = `${this.#basePath}/${request.path}${query}`;
    const headers: Record<string, string> = { 'user-agent': this.#options.userAgent, accept: JSON_CONTENT_TYPE };
    // process.hrtime rather than performance.now(): the first use of `performance` loads node's
    // perf_hooks, about 1.5 ms of a one-off (BENCHMARKS.md, start-up).
    const started = process.hrtime.bigint();
    const deadlineMs = request.timeoutMs ?? this.#timeouts.responseMs;
    const result = await this.#transport.exchange(
      {
        method: request.method,
        path,
        headers:
          request.method === 'POST'
            ? { ...headers, 'content-type': JSON_CONTENT_TYPE, authorization: this.#authorization }
            : { ...headers, authorization: this.#authorization },
        ...(request.method === 'POST' ? { body: JSON.stringify(request.items ?? []) } : {}),
      },
      { deadlineMs, signal: request.signal },
    );
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.outcome !== 'answered') {
      this.#log(request, 'network error', elapsedMs, headers);
      throw this.#failure(result, deadlineMs);
    }
    const responseHeaders = flattenHeaders(result.headers);
    this.#log(request, result.status, elapsedMs, responseHeaders);
    // Every answer passes here, a batch's and a one-off's: nothing downstream sees an echoed credential.
    // An honest answer holds none, and is searched once per innermost form rather than per form.
    const body = mayHoldCredential(result.body, this.#innermost) ? redactAnswer(result.body, this.#forms) : result.body;
    return { status: result.status, headers: responseHeaders, body, elapsedMs, redact: this.#redact };
  }

  close(): Promise<void> {
    return this.#transport.close();
  }

  #failure(result: Exclude<Exchange, { outcome: 'answered' }>, deadlineMs: number): Error {
    if (result.outcome === 'aborted') return new RequestAbortedError(result.sent);
    const timedOut = `timed out after ${deadlineMs / 1000} s`;
    if (result.outcome === 'timed out') return new NetworkError(timedOut, { mayHaveBeenCharged: result.sent });
    // Through a proxy, a refused or dropped connection may be the proxy's: the message says which was tried.
    const via = this.#options.proxy === undefined ? '' : ` (through the proxy ${this.#options.proxy}; --no-proxy-env goes straight)`;
    return new NetworkError(`${this.#redact(describeNetworkError(result.error, timedOut, this.#host))}${via}`, {
      mayHaveBeenCharged: result.sent,
      lasting: codeOf(result.error) === 'ENOTFOUND',
      cause: result.error,
    });
  }

  #log(request: ServiceRequest, status: number | 'network error', elapsedMs: number, headers: Record<string, string>) {
    this.#options.onRequest?.({
      method: request.method,
      path: `/${request.path}`,
      items: request.items?.length ?? 1,
      status,
      elapsedMs,
      headers,
    });
  }
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** OpenSSL's codes for a certificate from an authority Node does not trust: a gateway's own (`propdata serve --tls-cert`), a company's. */
const UNTRUSTED_CERTIFICATE = [
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
];
const TRUST_A_CERTIFICATE =
  "the server's certificate is from an authority this machine does not trust; if it is yours (a gateway's own), trust it with NODE_EXTRA_CA_CERTS=FILE.pem";

const codeOf = (error: unknown) => (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;

/** Where a wrong base URL is corrected. */
const BASE_URL_SOURCES = '--base-url, PROPDATA_BASE_URL or `propdata config set base-url`';

/**
 * undici's and node's error codes, in words a user can act on; undici's header and body timers are
 * the deadline's. Where no connection was made the host is named, and where to correct it.
 */
function describeNetworkError(error: unknown, timedOut: string, host: string): string {
  const code = codeOf(error);
  const messages: Record<string, string> = {
    ECONNREFUSED: `connection refused by ${host} (is the base URL right, is the service up? ${BASE_URL_SOURCES})`,
    ECONNRESET: 'connection reset by the server',
    // The one-off transport's connect timeout, as the OS names its own.
    ETIMEDOUT: 'timed out while connecting',
    UND_ERR_SOCKET: 'connection dropped by the server',
    UND_ERR_CONNECT_TIMEOUT: 'timed out while connecting',
    UND_ERR_HEADERS_TIMEOUT: timedOut,
    UND_ERR_BODY_TIMEOUT: timedOut,
    ENOTFOUND: `host ${host} not found; check the base URL (${BASE_URL_SOURCES})`,
    EAI_AGAIN: `the lookup of host ${host} failed (DNS: is the network up, is the base URL right? ${BASE_URL_SOURCES})`,
    ...Object.fromEntries(UNTRUSTED_CERTIFICATE.map((certificate) => [certificate, `${certificate}: ${TRUST_A_CERTIFICATE}`])),
    ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate does not name the host of the base URL (its subjectAltName)",
    CERT_HAS_EXPIRED: "the server's certificate has expired",
  };
  return (code && messages[code]) ?? (error instanceof Error ? error.message : String(error));
}
