import { PassThrough, Readable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/catalog/index.js';
import { attachAllOptions } from '../../src/cli/deferred-options.js';
import { Messages } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { docPages, readDoc } from '../helpers/docs.js';
import { runMain } from '../helpers/run-main.js';

describe('help and the endpoint listing', () => {
  it('lists every catalog endpoint with its version and list price (--wide)', async () => {
    const result = await runMain(['endpoints', '--wide']);
    expect(result.code).toBe(0);
    for (const endpoint of ENDPOINTS) {
      const price = endpoint.mget ? 'sum' : endpoint.price.toFixed(2).replace('.', '\\.');
      expect(result.stdout).toMatch(new RegExp(`^${endpoint.name}\\s+v2\\s+${price}\\s`, 'm'));
    }
  });

  it("is compact by default, one line an endpoint cut to a terminal's width; --wide wraps its descriptions to it", async () => {
    const compact = await runMain(['endpoints', '--level', 'property'], { tty: true, columns: 100 });
    const rows = compact.stdout.split('\n\n')[0]!.split('\n');
    expect(rows[0]).toMatch(/^ENDPOINT +USD +DESCRIPTION$/);
    expect(rows).toHaveLength(1 + ENDPOINTS.filter((e) => e.level === 'property').length);
    expect(compact.stdout).toMatch(/^property\/value +0\.\d\d +\S/m);
    const wide = await runMain(['endpoints', '--wide'], { tty: true, columns: 100 });
    expect(wide.stdout).toMatch(/^ENDPOINT +VERSION +USD +IDENTIFIERS +PARAMETERS +DESCRIPTION$/m);
    for (const output of [compact.stdout, wide.stdout]) {
      expect(Math.max(...output.split('\n').map((line) => line.length))).toBeLessThan(100);
    }
    // Written to a pipe, a row is one line, whatever its length.
    const piped = await runMain(['endpoints', '--wide']);
    expect(piped.stdout.split('\n\n')[0]!.split('\n')).toHaveLength(1 + ENDPOINTS.length);
  });

  it("lists a level's commands by one spelling each", async () => {
    const result = await runMain(['property', '--help']);
    expect(result.stdout).toMatch(/^ {2}value_within_block \[options\] /m);
    expect(result.stdout).not.toMatch(/value-within-block/);
  });

  it('filters by level and prints JSON', async () => {
    const result = await runMain(['endpoints', '--level', 'block', '--json']);
    const listed = JSON.parse(result.stdout) as { name: string }[];
    expect(listed.map((e) => e.name)).toEqual(ENDPOINTS.filter((e) => e.level === 'block').map((e) => e.name));
  });

  it('gives every command a description and an example', async () => {
    const commands = [
      ['property', 'value'],
      ['property', 'value_within_block'],
      ['block', 'hcri'],
      ['mget'],
      ['call'],
      ['endpoints'],
      ['config'],
      ['sandbox'],
      ['estimate'],
    ];
    for (const command of commands) {
      const result = await runMain([...command, '--help']);
      expect(result.code, command.join(' ')).toBe(0);
      expect(result.stdout, command.join(' ')).toMatch(/Example/);
    }
    const value = await runMain(['property', 'value-details-adjusted', '--help']);
    expect(value.stdout).toMatch(/--add-beds <int>/);
    expect(value.stdout).toMatch(/--add-pools <int>/);
  });

  it('gives every command --verbose, which the line of an unexpected error suggests', () => {
    const io = { stdin: Readable.from([]), stdout: new PassThrough(), stderr: new PassThrough(), env: {} };
    const program = buildProgram({ io, messages: new Messages(io), argv: [], exitCode: 0 });
    attachAllOptions(program);
    const leaves = (command: Command, path: string): string[][] =>
      command.commands.length > 0
        ? command.commands.flatMap((sub) => leaves(sub, `${path} ${sub.name()}`))
        : [[path, command.options.some((option) => option.long === '--verbose') ? 'yes' : 'no']];
    const commands = leaves(program, 'propdata');
    expect(commands.length).toBeGreaterThan(ENDPOINTS.length);
    expect(commands.filter(([, verbose]) => verbose === 'no')).toEqual([]);
  });

  it('prints the version', async () => {
    const result = await runMain(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('help text', () => {
  it('is not wrapped when not written to a terminal, so no example is cut in two', async () => {
    const result = await runMain(['--help']);
    expect(result.stdout).toContain('$ propdata property value --address "43 Valmonte Plaza" --zipcode 90274\n');
    const value = await runMain(['property', 'value', '--help']);
    for (const line of value.stdout.split('\n').filter((text) => text.includes('$ propdata'))) expect(line).toMatch(/^ {2}\$ propdata \S/);
    expect(value.stdout).toMatch(/--max-wait <duration> +longest wait for the rate limit[^\n]*Default 90s for one item, 15m for a batch\n/);
  });

  it('is wrapped to a terminal, its examples kept whole', async () => {
    const result = await runMain(['--help'], { tty: true, columns: 100 });
    const [listing] = result.stdout.split('Examples:');
    expect(Math.max(...listing!.split('\n').map((line) => line.length))).toBeLessThanOrEqual(100);
    expect(result.stdout).toContain('$ propdata property value --address "43 Valmonte Plaza" --zipcode 90274\n');
  });

  it("`propdata help property value` is the endpoint command's help, not the level's", async () => {
    const result = await runMain(['help', 'property', 'value']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe((await runMain(['property', 'value', '--help'])).stdout);
    expect(result.stdout).toMatch(/Usage: propdata property value/);
    expect((await runMain(['help', 'config', 'set'])).stdout).toMatch(/Usage: propdata config set/);
  });

  it('gives every config subcommand an example', async () => {
    for (const sub of ['set', 'get', 'unset', 'list', 'path']) {
      const result = await runMain(['config', sub, '--help']);
      expect(result.stdout, sub).toMatch(new RegExp(`Examples:\\n {2}\\$ propdata config ${sub}`));
    }
  });

  it('prints a guide: `propdata help nightly` is docs/nightly.md, less the comment lines only its tests read', async () => {
    const result = await runMain(['help', 'nightly']);
    expect(result.code).toBe(0);
    const page = readDoc('docs/nightly.md');
    expect(result.stdout).toMatch(/^# Nightly jobs\n/);
    expect(result.stdout).toContain('flock -n 9');
    expect(page).toContain('<!-- runs -->');
    expect(result.stdout).not.toContain('<!--');
    expect(result.stdout.split('\n')).toHaveLength(page.split('\n').length - (page.match(/^[ \t]*<!--.*-->$/gm) ?? []).length);
  });

  it('lists the guides, one line for each page in docs/; a guide named as a command is `help guide NAME`', async () => {
    const listed = await runMain(['help', 'guides']);
    expect(listed.code).toBe(0);
    const guides = docPages().filter((page) => page.startsWith('docs/'));
    expect(listed.stdout.trimEnd().split('\n')).toHaveLength(guides.length);
    expect(listed.stdout).toMatch(/^propdata help nightly +Nightly jobs$/m);
    expect(listed.stdout).toMatch(/^propdata help several-machines +Several machines$/m);
    expect(listed.stdout).toMatch(/^propdata help guide sandbox +The sandbox$/m);
    expect((await runMain(['help', 'guide', 'sandbox'])).stdout).toMatch(/^# The sandbox\n/);
    expect((await runMain(['help', 'sandbox'])).stdout).toMatch(/^Usage: propdata sandbox /);
    const unknown = await runMain(['help', 'guide', 'nightlies']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe('propdata: no guide named "nightlies": propdata help guides lists them\n');
  });
});
