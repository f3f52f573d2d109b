import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { BIN } from './paths.mjs';

/**
 * The sandbox in its own process, as a user runs it (`propdata sandbox`), so that its work
 * does not count as propdata's. Credit is unlimited for practical purposes: a million rows
 * must not run into 402.
 */
export async function startSandbox(extraArgs = []) {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--credit', '1000000000', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  const url = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the sandbox exited with ${code} before listening`)));
    child.stdout.on('data', (part) => {
      text += part;
      const match = /base URL:\s*(\S+)/.exec(text);
      if (match) resolve(match[1]);
    });
  });
  child.removeAllListeners('exit');
  return {
    url,
    /** What the CLI needs to reach this sandbox. */
    env: { PROPDATA_BASE_URL: url, PROPDATA_API_KEY: 'sandbox', PROPDATA_API_SECRET: 'sandbox' },
    /**
     * CPU seconds the sandbox has used so far, from /proc (Linux; undefined elsewhere): shows
     * whether a run waited on the sandbox rather than on propdata. Ticks are 1/100 s on Linux.
     */
    cpuSeconds() {
      const stat = `/proc/${child.pid}/stat`;
      if (!existsSync(stat)) return undefined;
      const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGINT');
      await once(child, 'exit');
    },
  };
}
