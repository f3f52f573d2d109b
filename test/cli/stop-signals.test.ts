import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { SignalStop } from '../../src/cli/stop-signal.js';
import { startCli, untilStderr, type CliProcess } from '../helpers/cli-process.js';
import { chunkFor } from '../helpers/scripted-server.js';
const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));

const running: { child: ChildProcess; server: Server }[] = [];

afterEach(() => {
  for (const { child, server } of running.splice(0)) {
    child.kill('SIGKILL');
    server.closeAllConnections();
    server.close();
  }
});

/** A batch in flight, and the acknowledgment its first stop signal gets on stderr. */
interface InFlight {
  child: ChildProcess;
  /** Resolves once stderr says the run is stopping (the nightly guide's "stopping: finishing N requests in flight"). */
  acknowledged: () => Promise<void>;
  /** Answers the request in flight, as the service would: a clean stop can then end by itself. */
  answer: () => void;
  /** What it has written to stderr so far. */
  stderr: () => string;
  /** Its end. */
  exited: CliProcess['exited'];
}

/**
 * A batch against a service that takes every request and answers only when told, started and
 * waited on until its first request is out: until then a clean stop cannot end by itself, so only
 * an exit at once does.
 */
async function batchInFlight(): Promise<InFlight> {
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (part: Buffer) => (body += part.toString()));
    request.on('end', () => {
      held.push(Object.assign(response, { items: (JSON.parse(body) as unknown[]).length }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const arrived = once(server, 'request');
  const output = join(mkdtempSync(join(tmpdir(), 'propdata-signal-')), 'out.csv');
  const cli = startCli(['property', 'value', '--input', join(SAMPLES, 'addresses.csv'), '--output', output], {
    env: {
      PROPDATA_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      PROPDATA_API_KEY: 'k',
      PROPDATA_API_SECRET: 's',
    },
  });
  const { child } = cli;
  running.push({ child, server });
  const stopping = untilStderr(cli, /stopping: finishing 1 requests in flight; Ctrl-C again to abort/);
  await arrived;
  // Waited for here, so that the request is held before anything answers it.
  while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
  return {
    child,
    acknowledged: () => stopping,
    stderr: cli.stderr,
    exited: cli.exited,
    answer: () => {
      const response = held[0] as ServerResponse & { items: number };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(Array.from({ length: response.items }, () => chunkFor(['property/value']))));
    },
  };
}

describe('stop signals', () => {
  it('takes a first SIGTERM as a request to stop cleanly and exits 130 at once on a second', async () => {
    const { child, acknowledged, exited } = await batchInFlight();
    child.kill('SIGTERM');
    // Acknowledged at once, and still running: the request in flight is never answered.
    await acknowledged();
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    const { code } = await exited;
    expect(code).toBe(130);
  });

  it('takes SIGHUP as a request to stop cleanly, not cut short by a repeated SIGHUP', async () => {
    const { child, acknowledged, answer, stderr, exited } = await batchInFlight();
    child.kill('SIGHUP');
    await acknowledged();
    child.kill('SIGHUP');
    // The answer reaches it after the second SIGHUP: a run that the hangup had cut short would
    // have exited without it; a clean stop writes it, sums up and prints how to resume.
    answer();
    const { code } = await exited;
    expect(code).toBe(130);
    expect(stderr()).toMatch(/propdata: interrupted: .*holds \d+ ok[\s\S]*continue with:\n.*--resume/);
  });

  it('names the signal in the abort reason, and carries exit code 130', () => {
    const stop = new SignalStop('SIGTERM');
    expect(stop).toMatchObject({ signal: 'SIGTERM', message: 'stopped by SIGTERM' });
    expect(exitCodeFor(stop)).toBe(EXIT.interrupted);
    expect(new SignalStop('SIGINT').message).toBe('stopped by Ctrl-C (SIGINT)');
    const controller = new AbortController();
    controller.abort(stop);
    expect(() => controller.signal.throwIfAborted()).toThrow(stop);
  });
});
