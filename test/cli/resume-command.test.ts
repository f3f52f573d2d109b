import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, resumeCommand } from '../../src/cli/resume-command.js';

/** The words a POSIX shell makes of a command line: what the printed command runs as. */
function shellWords(command: string): string[] {
  const printed = execFileSync('/bin/sh', ['-c', `set -- ${command}; printf '%s\\0' "$@"`]).toString();
  return printed.split('\0').slice(0, -1);
}

describe('the command that resumes an interrupted run', () => {
  it('reruns the arguments as given, with --resume once at the end', () => {
    const argv = ['property', 'value', '--input', 'homes.csv', '--resume', '--output', 'out.csv', '--resume'];
    expect(resumeCommand(argv)).toEqual({ command: 'propdata property value --input homes.csv --output out.csv --resume' });
  });

  it('quotes every argument a shell would change, so the command runs as printed', () => {
    const argv = [
      'property',
      'value',
      '-i',
      'my homes (2024).csv',
      '-o',
      "Bob's out.csv",
      '--param',
      'x=$HOME',
      '--meta-column',
      '',
      '--address',
      '*',
      '--city',
      'São Paulo; echo injected ~',
      '--state',
      '`id`\n"x"',
    ];
    const { command } = resumeCommand(argv);
    expect(shellWords(command)).toEqual(['propdata', ...argv, '--resume']);
  });

  it('leaves credentials out, in both spellings, and says how to give them again', () => {
    const argv = [
      'property',
      'value',
      '--key',
      'K3Y-value',
      '-i',
      'in.csv',
      '--secret=s3cret value',
      '--key=other',
      '--secret',
      's2',
      '-o',
      'out.csv',
    ];
    const { command, note } = resumeCommand(argv);
    expect(command).toBe('propdata property value -i in.csv -o out.csv --resume');
    expect(command).not.toMatch(/K3Y|s3cret|other|s2|\*\*\*\*/);
    expect(note).toBe(
      'credentials: give them again, or use the environment (PROPDATA_API_KEY, PROPDATA_API_SECRET), ' +
        '`propdata config set key|secret -` (from stdin), or --secret-file FILE',
    );
  });

  it("leaves a store URL's password out, keeping the URL, and says where the password goes instead", () => {
    const url = 'postgres://jobs:pa55word@db.internal/enrichment?sslmode=verify-full';
    const { command, note } = resumeCommand(['property', 'value', '-i', 'in.csv', '--store', url, '--store=postgres://a:b@h/d']);
    expect(command).toBe(
      "propdata property value -i in.csv --store 'postgres://jobs@db.internal/enrichment?sslmode=verify-full' --store=postgres://a@h/d --resume",
    );
    expect(note).toBe("the store's password: give it with PGPASSWORD or in ~/.pgpass");
    expect(commandLine(['property', 'value', '--store', url])).not.toContain('pa55word');
    expect(resumeCommand(['property', 'value', '--store', 'postgres://jobs@db.internal/enrichment'])).toEqual({
      command: 'propdata property value --store postgres://jobs@db.internal/enrichment --resume',
    });
  });

  it('gives no note when no credential was on the command line, and keeps flags that only start like one', () => {
    expect(resumeCommand(['property', 'value', '-i', 'in.csv', '--keyboard', 'x'])).toEqual({
      command: 'propdata property value -i in.csv --keyboard x --resume',
    });
  });

  it('drops a trailing --key that has no value without losing anything else', () => {
    expect(resumeCommand(['property', 'value', '-i', 'in.csv', '--key'])).toEqual({
      command: 'propdata property value -i in.csv --resume',
      note: expect.stringMatching(/^credentials:/),
    });
  });

  it('keeps operands after `--` as they are, with --resume before them', () => {
    expect(resumeCommand(['call', '-i', 'in.csv', '--', '--key', 'v3/zip/details']).command).toBe(
      'propdata call -i in.csv --resume -- --key v3/zip/details',
    );
  });
});
