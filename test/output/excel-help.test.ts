import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

describe('--excel', () => {
  it('says in its help that it guards formulas, not zeros, and points to xlsx output', async () => {
    const help = await runMain(['mget', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(
      /--excel CSV for spreadsheets: UTF-8 BOM, and cells that would run as formulas neutralised\. It guards formulas, not zeros: a spreadsheet still opens ZIP 06040 as 6040; --format xlsx keeps identifiers as text/,
    );
  });
});
