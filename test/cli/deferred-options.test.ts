import { PassThrough, Readable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { attachAllOptions } from '../../src/cli/deferred-options.js';
import { Messages, type Io } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { runMain } from '../helpers/run-main.js';

/** The help of every command, from a program with every command's options attached up front. */
function helpBuiltUpFront(): Map<string, string> {
  let text = '';
  const stdout = Object.assign(new PassThrough(), { isTTY: false });
  stdout.on('data', (part: Buffer) => (text += part.toString()));
  const io: Io = { stdin: Readable.from([]), stdout, stderr: stdout, env: {} };
  const program = buildProgram({ io, messages: new Messages(io), argv: [], exitCode: EXIT.ok });
  attachAllOptions(program);
  const helps = new Map<string, string>();
  const visit = (command: Command, path: string[]): void => {
    for (const subcommand of command.commands) {
      const words = [...path, subcommand.name()];
      text = '';
      subcommand.outputHelp();
      helps.set(words.join(' '), text);
      visit(subcommand, words);
    }
  };
  visit(program, []);
  return helps;
}

describe('options attached on use', () => {
  it('leave every help text as it is with every option built up front', async () => {
    const helps = helpBuiltUpFront();
    expect(helps.size).toBeGreaterThan(80);
    for (const [path, expected] of helps) {
      const words = path.split(' ');
      for (const argv of [
        [...words, '--help'],
        ['help', ...words],
      ]) {
        const result = await runMain(argv);
        expect(result.stdout, argv.join(' ')).toBe(expected);
      }
      // The level's own help command shows the endpoint's help without dispatching to it.
      if (words.length === 2) expect((await runMain([words[0]!, 'help', words[1]!])).stdout, path).toBe(expected);
    }
  });
});
