import type { Command } from 'commander';
import { TEST_KEY_PREFIX } from '../../sandbox/auth.js';
import {
  describeSandbox,
  resolveOptions,
  SANDBOX_DEFAULTS,
  SANDBOX_OPTIONS,
  sandboxOptionsFrom,
  type SandboxFlagValues,
  type SandboxRequestLog,
} from '../../sandbox/options.js';
import { USAGE_PATH } from '../../sandbox/server.js';
import { addOptions } from '../add-options.js';
import type { CommandContext } from './command-context.js';

/** `12:00:01 POST /v2/property/value -> 200 (35 ms)`. */
function requestLine(entry: SandboxRequestLog): string {
  const time = new Date().toISOString().slice(11, 19);
  const status = entry.status === 'reset' ? 'connection dropped (--reset-rate)' : String(entry.status);
  return `${time} ${entry.method} ${entry.path} -> ${status} (${Math.round(entry.elapsedMs)} ms)`;
}

export function registerSandboxCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('sandbox')
    .usage('[--port N] [--host 127.0.0.1] [options]')
    .description('run the built-in sandbox in the foreground: a local stand-in for the service with synthetic data')
    .addHelpText(
      'after',
      [
        '',
        `Credentials: key "sandbox", secret "sandbox" (--sandbox-key, --sandbox-secret). The test key`,
        `${TEST_KEY_PREFIX}<key> with the same secret answers only the test items; other items come back 204.`,
        `GET ${USAGE_PATH} reports components used, charges and credit left.`,
        'Example responses for every endpoint: samples/responses.md',
        '',
        'Examples:',
        '  $ propdata sandbox --port 8787',
        '  $ propdata sandbox --rate-limit 20/1,250/60 --fail-rate 0.1 --latency 50-400',
        '  $ PROPDATA_BASE_URL=http://127.0.0.1:8787 PROPDATA_API_KEY=sandbox PROPDATA_API_SECRET=sandbox \\',
        '      propdata property value --address "43 Valmonte Plaza" --zipcode 90274',
      ].join('\n'),
    );
  addOptions(command, [...SANDBOX_OPTIONS, { flags: '-q, --quiet', description: 'no line per request' }], context.io.env);
  command.action(async (options: SandboxFlagValues & { quiet?: boolean }) => {
    const { startSandbox } = await import('../../sandbox/server.js');
    const out = (line: string): void => {
      context.io.stdout.write(`${line}\n`);
    };
    const settings = resolveOptions(sandboxOptionsFrom(options));
    const sandbox = await startSandbox({
      ...settings,
      ...(options.quiet ? {} : { onRequest: (entry: SandboxRequestLog) => out(requestLine(entry)) }),
    });
    // stdout, not the redacting stderr: printing the credentials it accepts is this command's job.
    out(`propdata sandbox listening on ${sandbox.url} (synthetic data)`);
    out(`  base URL: ${sandbox.url}`);
    out(`  key:      ${sandbox.key}`);
    out(`  secret:   ${sandbox.secret}`);
    out(`  test key: ${TEST_KEY_PREFIX}${sandbox.key} (same secret; test items only)`);
    out(`  usage:    ${sandbox.url}${USAGE_PATH}`);
    if (settings.host !== SANDBOX_DEFAULTS.host)
      out(`  listening on ${settings.host}: from another machine, use this machine's address in place of ${new URL(sandbox.url).hostname}`);
    for (const line of describeSandbox(settings)) out(`  ${line}`);
    if (!options.quiet) out('Each request is logged below (--quiet: not).');
    out('Stop it with Ctrl-C.');
    await new Promise<void>((resolve) => {
      if (context.io.signal?.aborted) {
        resolve();
        return;
      }
      context.io.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    await sandbox.close();
    out('propdata sandbox stopped');
  });
}
