import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/propdata.js', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  /** The base URL it printed. */
  url: string;
  /** What it has written so far, stdout and stderr together. */
  output(): string;
  /** Its exit code once it has exited (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** `propdata serve` as a process of its own (the compiled bin), once it says where it listens. */
export function spawnServe(args: readonly string[], env: Record<string, string | undefined>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: { ...process.env, ...env } });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const read = (part: Buffer) => {
      output += part.toString();
      const url = /listening on (https?:\/\/\S+?),/.exec(output)?.[1];
      if (url) resolve({ child, url, output: () => output, exited });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then((code) => reject(new Error(`propdata serve exited ${String(code)} before listening:\n${output}`)));
  });
}

/** A port free now, for two gateways that must listen one after the other at one address. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A self-signed certificate for 127.0.0.1 and its key, made by openssl in `dir`: gw.pem and gw.key. */
export function testCertificate(dir: string): { cert: string; key: string } {
  const [cert, key] = [join(dir, 'gw.pem'), join(dir, 'gw.key')];
  const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
  execFileSync('openssl', ['req', '-x509', ...ec, '-nodes', '-days', '2', ...subject, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}
