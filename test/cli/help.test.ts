import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/catalog/index.js';
import { runMain } from '../helpers/run-main.js';

describe('help and the endpoint listing', () => {
  it('lists every catalog endpoint with its version and list price', async () => {
    const result = await runMain(['endpoints']);
    expect(result.code).toBe(0);
    for (const endpoint of ENDPOINTS) {
      const price = endpoint.mget ? 'sum' : endpoint.price.toFixed(2).replace('.', '\\.');
      expect(result.stdout).toMatch(new RegExp(`^${endpoint.name}\\s+v2\\s+${price}\\s`, 'm'));
    }
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

  it('prints the version', async () => {
    const result = await runMain(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
