import { once } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli-process.js';
import { chunkFor } from '../helpers/scripted-server.js';
/** Far more than the run needs once it notices: only a hang or a minutes-long wait reaches it. */
const DEADLINE_MS = 10_000;

interface Ended {
  code: number | null;
  stderr: string;
  timedOut: boolean;
}

/**
 * The compiled CLI with its stdout read by a reader that goes away, as `| head` does: at once
 * (before the first byte) or after the first bytes. Killed if it outlives DEADLINE_MS.
 */
async function withClosingReader(args: string[], closeAfterFirstBytes: boolean, env: Record<string, string> = {}): Promise<Ended> {
  const cli = startCli(args, { env: { PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-pipe-')), ...env } });
  const stdout = cli.child.stdout!;
  if (closeAfterFirstBytes) stdout.once('data', () => stdout.destroy());
  else stdout.destroy();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    cli.child.kill('SIGKILL');
  }, DEADLINE_MS);
  const { code } = await cli.exited;
  clearTimeout(timer);
  return { code, stderr: cli.stderr(), timedOut };
}

describe('a stdout whose reader goes away (EPIPE)', () => {
  it.each(['endpoints', 'endpoints --json', '--help', 'property value --help', 'config list', '--version'])(
    'ends `propdata %s` quietly with exit 0',
    async (command) => {
      const ended = await withClosingReader(command.split(' '), false);
      expect(ended).toEqual({ code: 0, stderr: '', timedOut: false });
    },
  );

  it.skipIf(!existsSync('/dev/full'))('still fails a listing whose stdout cannot be written for another reason (a full disk)', async () => {
    const full = openSync('/dev/full', 'w');
    const ended = runCli(['endpoints'], { stdio: ['ignore', full, 'pipe'] });
    closeSync(full);
    const { code, stderr } = await ended;
    expect(code).toBe(1);
    expect(stderr).toBe('propdata: cannot write to stdout: the disk is full\n');
  });

  it('stops a batch writing to stdout as soon as the pipe closes, exit 1 in one line, even with requests still out', async () => {
    // The first request (the pacing probe) is answered; every later one hangs, as a slow
    // service or a rate-limit wait would: only noticing the closed pipe at once ends the run.
    let requests = 0;
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (part: Buffer) => (body += part.toString()));
      request.on('end', () => {
        if (requests++ > 0) return;
        const items = JSON.parse(body) as unknown[];
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(items.map(() => chunkFor(['property/value']))));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const input = join(mkdtempSync(join(tmpdir(), 'propdata-pipe-')), 'homes.csv');
    writeFileSync(input, ['address,zipcode', ...Array.from({ length: 500 }, (_, i) => `${i + 1} Main St,90274`)].join('\n'));
    try {
      const ended = await withClosingReader(['property', 'value', '--input', input, '--quiet'], true, {
        PROPDATA_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        PROPDATA_API_KEY: 'k',
        PROPDATA_API_SECRET: 's',
      });
      expect(ended.timedOut).toBe(false);
      expect(ended.code).toBe(1);
      expect(ended.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/);
      expect(ended.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^propdata: .*(EPIPE|closed the pipe)/)]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
