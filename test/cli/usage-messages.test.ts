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
