import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { Messages, type Io } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { README_OPTION_TABLES, readmeTables } from '../../src/cli/readme-tables.js';
import { markedBlocks, renderMarkedBlocks, renderOptionTable, renderOptionTables } from '../../src/options/readme-table.js';
import { docPages, readDoc, ROOT } from '../helpers/docs.js';

const UPDATE = 'PROPDATA_UPDATE_README=1 npx vitest run --config test/vitest.config.ts test/options/readme-tables.test.ts';

/** The program as main() builds it: its commands are the command table's declarations. */
function program() {
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env: {} } as unknown as Io;
  return buildProgram({ io, messages: new Messages(io), argv: [], exitCode: 0 });
}

/** A page with every generated table rendered again from the declarations. */
function rendered(page: string): string {
  return renderMarkedBlocks(renderOptionTables(page, README_OPTION_TABLES), 'table', readmeTables(program()));
}

describe("the documentation's generated tables", () => {
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

  it('name commands as their Usage lines do, and exit codes as declared', () => {
    const tables = readmeTables(program());
    expect(tables.commands).toContain('| `propdata property <target> [identifiers] [params]` | property-level endpoints, e.g. ');
    expect(tables.commands).toContain('| `propdata help <command> [<subcommand>]` | the same as &lt;command> [&lt;subcommand>] --help ');
    expect(tables['exit-codes']).toMatch(/^\| 4 \| a budget: .*--max-cost-month/m);
    expect(tables['exit-codes']).toMatch(/^\| 130 \| interrupted/m);
  });

  it('are each on one page of the documentation, as the declarations say now', () => {
    const pages = docPages().map((path) => ({ path, text: readDoc(path) }));
    const marked = (kind: string) => pages.flatMap(({ text }) => markedBlocks(text, kind)).sort();
    // Every table once, on whichever page carries its marker (README.md, docs/*.md).
    expect(marked('options')).toEqual(Object.keys(README_OPTION_TABLES).sort());
    expect(marked('table')).toEqual(Object.keys(readmeTables(program())).sort());
    for (const { path, text } of pages) {
      const now = rendered(text);
      if (process.env.PROPDATA_UPDATE_README === '1') writeFileSync(`${ROOT}${path}`, now);
      else
        expect(text, `${path}'s generated tables differ from the declarations; if the change is intended, rewrite them: ${UPDATE}`).toBe(
          now,
        );
    }
  });
});
