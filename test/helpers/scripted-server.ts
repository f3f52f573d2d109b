import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export interface ScriptedReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Drop the connection without answering. */
  destroy?: boolean;
}

/** A reply, or a promise of one (a slow answer). */
export type Script = (request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that answers from a script: for the failures the sandbox does
 * not produce on demand (a 401 on the third request, an HTML 503 page, a malformed body...).
 */
export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(parts).toString(),
        at: Date.now(),
      };
      requests.push(request);
      void Promise.resolve(script(request, requests.length - 1)).then((reply) => {
        if (reply.destroy) {
          res.socket?.destroy();
          return;
        }
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A valid property chunk for `sections`, enough for client-side tests. */
export function chunkFor(sections: string[], meta?: string): Record<string, unknown> {
  return {
    address_info: { address_full: '43 Valmonte Plz, Palos Verdes Estates, CA 90274', status: { match: true } },
    ...(meta === undefined ? {} : { meta }),
    ...Object.fromEntries(
      sections.map((name) => [name, { api_code: 0, api_code_description: 'ok', result: { value: { price_mean: 1 } } }]),
    ),
  };
}

/**
 * A scripted server for each test that starts one, closed after it. `serve` returns the
 * environment that points the CLI at it (with a config directory of its own, so no stored
 * setting leaks in); `stop` closes it early (a service gone mid-test).
 */
export function scriptedServerPerTest(secret = 'secret-1') {
  let running: ScriptedServer | undefined;
  const stop = async () => {
    await running?.close();
    running = undefined;
  };
  afterEach(stop);
  return {
    async serve(script: Script): Promise<Record<string, string>> {
      running = await startScriptedServer(script);
      return {
        PROPDATA_BASE_URL: running.url,
        PROPDATA_API_KEY: 'key-1',
        PROPDATA_API_SECRET: secret,
        PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-scripted-')),
      };
    },
    stop,
    /** The server this test started. */
    get current(): ScriptedServer {
      if (!running) throw new Error('this test started no scripted server');
      return running;
    },
  };
}
