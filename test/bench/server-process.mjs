import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';

/**
 * A server in its own process (`node ...args`), so that its work does not count as the
 * client's. Resolves once it prints `base URL: ...` on stdout (`listening`: another line that
 * names it); `env` is added to the bench's own.
 */
export async function startServerProcess(args, { env = {}, listening = /base URL:\s*(\S+)/ } = {}) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let text = '';
  const url = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`node ${args.join(' ')} exited with ${code} before listening`)));
    child.stdout.on('data', (part) => {
      text += part;
      const match = listening.exec(text);
      if (match) resolve(match[1]);
    });
  });
  child.removeAllListeners('exit');
  return {
    url,
    pid: child.pid,
    /**
     * CPU seconds the server has used so far, from /proc (Linux; undefined elsewhere): shows
     * whether a run waited on the server rather than on the client. Ticks are 1/100 s on Linux.
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
