import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { README_OPTION_TABLES } from '../../src/cli/readme-options.js';
import { markedOptionTables, renderOptionTable, renderOptionTables } from '../../src/options/readme-table.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const UPDATE = 'PROPDATA_UPDATE_README=1 npx vitest run --config test/vitest.config.ts test/options/readme-tables.test.ts';

describe("the README's option tables", () => {
  it('renders a declaration list as the help would say it', () => {
    const table = renderOptionTable([
      { flags: '--format <format>', description: 'output format', choices: ['csv', 'json'] },
      { flags: '--rate <n>', description: 'per minute', defaultValue: 250 },
      { flags: '--key <key>', description: 'API key', env: 'PROPDATA_API_KEY' },
    ]);
    expect(table).toBe(
      [
        '| option | meaning |',
        '| --- | --- |',
        '| `--format csv\\|json` | output format |',
        '| `--rate <n>` | per minute (default: 250) |',
        '| `--key <key>` | API key (env: PROPDATA_API_KEY) |',
      ].join('\n'),
    );
    expect(() => renderOptionTables('<!-- options: nope -->\n\n<!-- /options -->', {})).toThrow(/nope/);
  });

  it('are what the declarations say now', () => {
    const page = readFileSync(README, 'utf8');
    expect(markedOptionTables(page).sort()).toEqual(Object.keys(README_OPTION_TABLES).sort());
    const rendered = renderOptionTables(page, README_OPTION_TABLES);
    if (process.env.PROPDATA_UPDATE_README === '1') {
      writeFileSync(README, rendered);
      return;
    }
    expect(page, `README.md's option tables differ from the declarations; if the change is intended, rewrite them: ${UPDATE}`).toBe(
      rendered,
    );
  });
});
