import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

/** Usage errors as a user reads them: in the words of the command they typed, named once. */
const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));
const ENV = { PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's', PROPDATA_BASE_URL: 'http://127.0.0.1:9' };

describe('usage messages', () => {
  it('--price that is not a price, or names an endpoint the run does not call, is a usage error', async () => {
    for (const price of ['property/value=abc', 'property/valeu=1']) {
      const result = await runMain(['estimate', 'property/value', '--input', `${SAMPLES}addresses.csv`, '--price', price], { env: ENV });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--price property\/val(ue|eu)=/);
    }
  });

  it('estimate names each invalid row once', async () => {
    const result = await runMain(['estimate', 'property/value', '--input', `${SAMPLES}addresses.csv`], { env: ENV });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ row 53: /);
    expect(result.stdout).not.toMatch(/row 53: row 53/);
  });

  it('a one-off missing an identifier names flags, not rows and columns', async () => {
    const result = await runMain(['property', 'value', '--zipcode', '21204'], { env: ENV });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/needs an address or a slug .*\(give --address or --slug\)/);
    expect(result.stderr).not.toMatch(/row 1|column|--map/);
  });

  it('estimate of component_mget itself asks for its components instead of suggesting itself', async () => {
    const result = await runMain(['estimate', 'property/component_mget', '--input', `${SAMPLES}addresses.csv`], { env: ENV });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/name them, e\.g\. property\/value,property\/school/);
    expect(result.stderr).not.toMatch(/did you mean property\/component_mget/);
  });
});

describe('a way forward from a typo or a misplaced word', () => {
  /** What a user reads: one line, starting as every propdata message does. */
  async function refusal(argv: string[]): Promise<string> {
    const result = await runMain(argv, { env: ENV });
    expect(result.code, argv.join(' ')).toBe(2);
    expect(result.stderr, argv.join(' ')).toMatch(/^propdata: [^\n]*\n$/);
    return result.stderr;
  }

  it("every message starts with 'propdata: ' and is one line, commander's own included", async () => {
    expect(await refusal(['property', 'value', '--adress', 'x'])).toBe("propdata: unknown option '--adress'; did you mean --address?\n");
    expect(await refusal(['estimate'])).toBe("propdata: missing required argument 'endpoints'\n");
    expect(await refusal(['property', 'value', '--slug', 'x', '--format', 'xml'])).toMatch(
      /^propdata: option '--format <format>' argument 'xml' is invalid/,
    );
    expect(await refusal(['property', 'valeu'])).toMatch(/^propdata: unknown command 'valeu'; did you mean value\?/);
  });

  it('--zip is --zipcode', async () => {
    expect(await refusal(['property', 'value', '--address', '1 Main St', '--zip', '123'])).toMatch(/--zipcode must be 5 digits, got "123"/);
    expect(await refusal(['zip', 'details', '--zip', '9027'])).toMatch(/--zipcode must be 5 digits/);
  });

  it('a target without its level names the endpoint command, and a misspelt command the one it resembles', async () => {
    expect(await refusal(['value', '--address', '43 Valmonte Plaza'])).toBe(
      "propdata: unknown command 'value'; did you mean propdata property value?\n",
    );
    expect(await refusal(['property/value_within_block'])).toMatch(/did you mean propdata property value_within_block\?/);
    expect(await refusal(['endpoint'])).toMatch(/did you mean propdata endpoints\?/);
  });

  it('words after a query command are answered with the identifier flags', async () => {
    expect(await refusal(['property', 'value', '43 Valmonte Plaza', '90274'])).toBe(
      'propdata: unexpected "43 Valmonte Plaza" 90274: give identifiers as flags (--address, --unit, --city, --state, --zipcode, --slug), ' +
        'e.g. propdata property value --address "43 Valmonte Plaza" --zipcode 90274\n',
    );
    expect(await refusal(['block', 'crime', '060376703241005'])).toMatch(/give identifiers as flags \(--block-id\)/);
    expect(await refusal(['mget', 'property/value', '43 Valmonte Plaza'])).toMatch(/give identifiers as flags/);
  });

  it("an area's endpoint inside an mget points to its property form", async () => {
    expect(await refusal(['mget', 'property/value,block/crime', '--slug', 'x'])).toMatch(
      /"block\/crime" is not a property endpoint component_mget can fetch; did you mean property\/block_crime\?/,
    );
  });

  it('suggests --input only where a batch would help', async () => {
    expect(await refusal(['property', 'value'])).toMatch(/or pass --input FILE for a batch/);
    expect(await refusal(['property', 'value', '--address', '1 Main St', '--zipcode', '123'])).not.toMatch(/--input/);
  });
});
