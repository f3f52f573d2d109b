import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Endpoint } from '../catalog/index.js';
import { authenticate, type Access } from './auth.js';
import { Ledger, type SandboxUsage } from './billing.js';
import { Faults, serverErrorPage } from './faults.js';
import { listenOn, urlOf } from '../wire/listen.js';
import { chunkBuilder, type BuiltChunk, type TestListCheck } from './generate/chunk.js';
import { resolveOptions, type SandboxOptions } from './options.js';
import { RateWindows } from './rate-windows.js';
import { testListCheck } from './test-list.js';
import { testListAt } from './test-list-routes.js';
import { errorReply as message, readBody, writeReply, type Reply } from '../wire/replies.js';
import { RequestRejected, parseGet, parsePost } from '../wire/request-validation.js';
import { endpointAt } from '../wire/routes.js';

export interface RunningSandbox {
  url: string;
  key: string;
  secret: string;
  usage(): SandboxUsage;
  close(): Promise<void>;
}

/** Larger bodies than any valid POST of 100 items could need are refused before parsing. */
const MAX_BODY_BYTES = 5_000_000;

/** The sandbox's own usage report; not part of the service. */
export const USAGE_PATH = '/__sandbox/usage';

const CREDIT_EXHAUSTED_MESSAGE = 'Your credit is exhausted: add payment information to switch to a pay-as-you-go plan';

/** Names the keys a request carried that the spec does not list and the sandbox ignored. */
const IGNORED_KEYS_HEADER = 'X-Sandbox-Ignored-Keys';

/** What a delivered section answers: the item's identifiers and the endpoint's own parameters (a sibling component's do not matter). */
function subjectOf(
  endpoint: Endpoint,
  identifiers: Readonly<Record<string, string>>,
  params: Readonly<Record<string, string | number>>,
): string {
  const own = endpoint.params.filter((param) => params[param.name] !== undefined).map((param) => [param.name, params[param.name]]);
  return JSON.stringify([Object.entries(identifiers).sort(), own]);
}

/** The service's rules over the sandbox's state: its windows, its ledger, its faults. */
class Sandbox {
  readonly rate: RateWindows;
  readonly ledger: Ledger;
  readonly #settings: ReturnType<typeof resolveOptions>;
  readonly #faults: Faults;
  readonly #onTestList = testListCheck();

  constructor(settings: ReturnType<typeof resolveOptions>) {
    this.#settings = settings;
    this.rate = new RateWindows(settings.rateLimits, settings.now);
    this.ledger = new Ledger(settings.credit, settings.prices);
    this.#faults = new Faults(settings);
  }

  /** One request: authenticated, routed, perhaps failed on purpose (faults), else answered; logged. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const body = await readBody(request, MAX_BODY_BYTES);
    const latency = this.#faults.latencyMs();
    if (latency > 0) await this.#settings.sleep(latency);
    const url = new URL(request.url ?? '/', 'http://sandbox.invalid');
    const method = request.method ?? 'GET';
    const reply = this.#route(method, url, request.headers, body);
    const log = (status: number | 'reset') =>
      this.#settings.onRequest({ method, path: url.pathname, status, elapsedMs: performance.now() - started });
    if (reply === 'reset') {
      request.socket.destroy();
      log('reset');
      return;
    }
    this.send(response, reply);
    log(reply.status);
  }

  send(response: ServerResponse, reply: Reply): void {
    writeReply(response, reply, this.rate.headers());
  }

  #route(method: string, url: URL, headers: IncomingMessage['headers'], body: string | undefined): Reply | 'reset' {
    const access = authenticate(headers.authorization, this.#settings.key, this.#settings.secret);
    if (!access) return { status: 401 };
    if (url.pathname === USAGE_PATH) return { status: 200, body: this.ledger.usage() };
    const testList = method === 'GET' ? testListAt(url.pathname) : undefined;
    if (testList) return { status: 200, body: testList };
    const endpoint = endpointAt(url.pathname);
    if (!endpoint) return message(404, `No endpoint at ${url.pathname}: paths are /v2/<level>/<target> as in the catalog`);
    if (method !== 'GET' && method !== 'POST') return message(405, `${method} is not supported: use GET or POST`, { Allow: 'GET, POST' });
    if (body === undefined) return message(413, `body larger than ${MAX_BODY_BYTES} bytes`);
    return this.#fault() ?? this.#answer(endpoint, access, method, url, headers['content-type'], body);
  }

  /** A failure drawn on purpose (--fail-rate, --reset-rate, --spurious-429-rate), if one is. */
  #fault(): Reply | 'reset' | undefined {
    const fault = this.#faults.draw();
    if (fault === 'reset') return 'reset';
    if (fault === 'server-error') {
      const status = this.#faults.serverErrorStatus();
      return { status, body: serverErrorPage(status), contentType: 'text/html; charset=utf-8' };
    }
    if (fault === 'spurious-429') return message(429, 'Rate limit exceeded: try again after X-RateLimit-Reset', this.rate.headers(true));
    return undefined;
  }

  /** The data request proper, once authenticated and routed: validation, limits, data, credit. */
  #answer(endpoint: Endpoint, access: Access, method: string, url: URL, contentType: string | undefined, body: string): Reply {
    let parsed;
    try {
      parsed =
        method === 'GET'
          ? parseGet(endpoint, url.searchParams, this.#settings.strict)
          : parsePost(endpoint, url.searchParams, contentType, body, this.#settings.strict);
    } catch (error) {
      if (error instanceof RequestRejected) return message(400, error.message);
      throw error;
    }
    const components = parsed.items.length * parsed.sections.length;
    if (!this.rate.fits(components)) {
      // Waiting cannot help a request larger than a whole window: say so, or a client waits forever.
      const advice =
        components > this.rate.largestRequest
          ? `no window allows more than ${this.rate.largestRequest}: send fewer items or components`
          : 'wait until X-RateLimit-Reset';
      return message(429, `Rate limit exceeded: this request needs ${components} components; ${advice}`);
    }
    const restriction: TestListCheck | undefined = access === 'test' ? this.#onTestList : undefined;
    const build = chunkBuilder(endpoint.level);
    const nowMs = this.#settings.now();
    const built: BuiltChunk[] = parsed.items.map((item) => build(parsed.sections, item, restriction, nowMs));
    const delivered = built.flatMap((chunk, i) => {
      const { identifiers, params } = parsed.items[i]!;
      return chunk.delivered.map((section) => ({ endpoint: section, subject: subjectOf(section, identifiers, params) }));
    });
    if (!this.ledger.canAfford(this.ledger.costOf(delivered))) return message(402, CREDIT_EXHAUSTED_MESSAGE);
    this.rate.take(components);
    this.ledger.record(
      parsed.items.flatMap(() => parsed.sections),
      delivered,
    );
    const headers = parsed.ignoredKeys.length > 0 ? { [IGNORED_KEYS_HEADER]: parsed.ignoredKeys.join(', ') } : undefined;
    return { status: 200, body: built.map((chunk) => chunk.chunk), headers };
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const settings = resolveOptions(options);
  const sandbox = new Sandbox(settings);
  const server = createServer((request, response) => {
    sandbox.handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sandbox.send(response, message(500, `sandbox error: ${error instanceof Error ? error.message : String(error)}`));
    });
  });
  const port = await listenOn(server, settings.host, settings.port, 'sandbox');
  return {
    url: urlOf('http', settings.host, port),
    key: settings.key,
    secret: settings.secret,
    usage: () => sandbox.ledger.usage(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
