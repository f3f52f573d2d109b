import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors/index.js';
import { SignalStop } from '../../src/cli/stop-signal.js';

const BIN = fileURLToPath(new URL('../../bin/propdata.js', import.meta.url));
const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));

const running: { child: ChildProcess; server: Server }[] = [];

afterEach(() => {
  for (const { child, server } of running.splice(0)) {
    child.kill('SIGKILL');
    server.closeAllConnections();
    server.close();
  }
});

/**
 * A batch against a service that takes every request and never answers, started and waited on
 * until its first request is out: a clean stop never ends by itself, so only an exit at once does.
 */
async function batchInFlight(): Promise<ChildProcess> {
  const server = createServer(() => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const arrived = once(server, 'request');
  const output = join(mkdtempSync(join(tmpdir(), 'propdata-signal-')), 'out.csv');
  const child = spawn(process.execPath, [BIN, 'property', 'value', '--input', join(SAMPLES, 'addresses.csv'), '--output', output], {
    env: {
      ...process.env,
      PROPDATA_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      PROPDATA_API_KEY: 'k',
      PROPDATA_API_SECRET: 's',
    },
  });
  running.push({ child, server });
  await arrived;
  return child;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('stop signals', () => {
  it('takes a first SIGTERM as a request to stop cleanly and exits 130 at once on a second', async () => {
    const child = await batchInFlight();
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await pause(200);
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(130);
  });

  it('takes SIGHUP as a request to stop cleanly, not cut short by a repeated SIGHUP', async () => {
    const child = await batchInFlight();
    const exited = once(child, 'exit');
    child.kill('SIGHUP');
    child.kill('SIGHUP');
    await pause(300);
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    // The SIGHUP counted as the first stop: a Ctrl-C now is the second, which exits at once.
    child.kill('SIGINT');
    const [code] = await exited;
    expect(code).toBe(130);
  });

  it('names the signal in the abort reason, and carries exit code 130', () => {
    const stop = new SignalStop('SIGTERM');
    expect(stop).toMatchObject({ signal: 'SIGTERM', exitCode: EXIT.interrupted, message: 'stopped by SIGTERM' });
    expect(new SignalStop('SIGINT').message).toBe('stopped by Ctrl-C (SIGINT)');
    const controller = new AbortController();
    controller.abort(stop);
    expect(() => controller.signal.throwIfAborted()).toThrow(stop);
  });
});
