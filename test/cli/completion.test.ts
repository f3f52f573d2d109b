import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

/** What bash offers after `words` (the last one being completed), with the script propdata printed. */
function bashCompletes(script: string, words: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-completion-'));
  writeFileSync(join(dir, 'propdata.bash'), script);
  const quoted = words.map((word) => `'${word}'`).join(' ');
  const probe = `source ${join(dir, 'propdata.bash')}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _propdata; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['--norc', '-c', probe], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('propdata completion', () => {
  it('bash: commands, endpoints from the catalog, options from the declarations, choices and files', async () => {
    const result = await runMain(['completion', 'bash']);
    expect(result.code).toBe(0);
    const script = result.stdout;
    expect(bashCompletes(script, ['propdata', 'pro'])).toEqual(['property']);
    expect(bashCompletes(script, ['propdata', 'block', 'hc'])).toEqual(['hcri']);
    expect(bashCompletes(script, ['propdata', 'property', 'value', '--add'])).toEqual(['--address']);
    expect(bashCompletes(script, ['propdata', 'property', 'value', '--format', ''])).toEqual(['csv', 'json', 'jsonl', 'xlsx']);
    expect(bashCompletes(script, ['propdata', 'mget', 'property/rental_v'])).toContain('property/rental_value');
    expect(bashCompletes(script, ['propdata', 'config', ''])).toEqual(expect.arrayContaining(['set', 'get', 'unset', 'list', 'path']));
    expect(bashCompletes(script, ['propdata', 'property', 'value', '--input', 'samples/addr'])).toEqual(['samples/addresses.csv']);
  });

  it('zsh and fish get their own scripts; another shell is a usage error', async () => {
    const zsh = await runMain(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/bashcompinit/);
    const fish = await runMain(['completion', 'fish']);
    expect(fish.stdout).toMatch(/complete -c propdata -f -a '\(__propdata_candidates\)'/);
    expect(fish.stdout).toContain("'property value'");
    const other = await runMain(['completion', 'tcsh']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/bash, zsh, fish/);
  });

  const has = (shell: string) => spawnSync(shell, ['-c', 'true']).status === 0;

  it.skipIf(!has('zsh'))('zsh runs the same function (when zsh is installed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-completion-'));
    writeFileSync(join(dir, 'propdata.zsh'), (await runMain(['completion', 'zsh'])).stdout);
    const probe = `source ${join(dir, 'propdata.zsh')}; COMP_WORDS=(propdata property val); COMP_CWORD=2; _propdata; print -l -- "\${COMPREPLY[@]}"`;
    const offered = execFileSync('zsh', ['-f', '-c', probe], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(offered).toContain('value_within_block');
    expect(offered).not.toContain('geocode');
  });

  it.skipIf(!has('fish'))('fish completes from its script (when fish is installed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-completion-'));
    writeFileSync(join(dir, 'propdata.fish'), (await runMain(['completion', 'fish'])).stdout);
    const probe = `source ${join(dir, 'propdata.fish')}; complete -C 'propdata property value --format '`;
    expect(execFileSync('fish', ['--no-config', '-c', probe], { encoding: 'utf8' }).split('\n').filter(Boolean)).toEqual([
      'csv',
      'json',
      'jsonl',
      'xlsx',
    ]);
  });
});
