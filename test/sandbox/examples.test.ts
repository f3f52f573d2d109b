import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type Endpoint, type EndpointName, type Level } from '../../src/catalog/index.js';
import {
  TEST_ITEMS,
  TEST_KEY_PREFIX,
  USAGE_PATH,
  startSandbox,
  type RunningSandbox,
  type SandboxOptions,
} from '../../src/sandbox/index.js';
import { neededParams } from './catalog-samples.js';
import { call, pathWithQuery, type CallOptions, type Reply } from './http.js';

const PAGE = fileURLToPath(new URL('../../samples/responses.md', import.meta.url));
const UPDATE = 'PROPDATA_UPDATE_EXAMPLES=1 npx vitest run --config test/vitest.config.ts test/sandbox/examples.test.ts';

/** The clock the page is produced with: it only shows in value_hpi_adjusted's current month and the rate-limit reset times. */
const NOW = Date.UTC(2025, 5, 1, 12);

const VALMONTE = { address: '43 Valmonte Plaza', zipcode: '90274' };
const BLOCK = { block_id: '060376703241005' };
/** Items of the other levels, by level. */
const AREA_ITEMS: Readonly<Partial<Record<Level, Record<string, string>>>> = {
  block: BLOCK,
  zip: { zipcode: '90274' },
  msa: { msa: '31080' },
};

/** Parameters that make an endpoint's example show what the parameter does; others get what they need. */
const EXAMPLE_PARAMS: Readonly<Partial<Record<EndpointName, Record<string, string | number>>>> = {
  'property/value_details_adjusted': { add_beds: 1, add_baths: 1 },
  'property/value_within_block': { client_value: 1_500_000 },
  'property/rental_value_within_block': { client_value: 9_000 },
  'property/value_hpi_adjusted': { client_value: 1_200_000, client_date: '2019-06-01' },
  'block/hcri': { property_type: 'SFD' },
};

interface Example {
  heading: string;
  /** What the example shows, in a sentence; none for the plain per-endpoint examples. */
  note?: string;
  path: string;
  options: CallOptions;
  /** Response headers worth showing (the rate-limit headers of a 429). */
  headers?: readonly string[];
}

/** A property with sale and rental listing records in the synthetic data (the test below checks it has them). */
const LISTED = { address: '240 S Altadena Dr', zipcode: '91107' };
const LISTED_NOTE = 'A property with listing records; for one without, the section is 204 and not charged.';

function endpointExample(endpoint: Endpoint<EndpointName>): Example {
  const aboutListings = endpoint.noContent === 'no-listing' || endpoint.noContent === 'limited-coverage';
  const identifiers = AREA_ITEMS[endpoint.level] ?? (aboutListings ? LISTED : VALMONTE);
  const query = { ...identifiers, ...neededParams(endpoint), ...EXAMPLE_PARAMS[endpoint.name] };
  return {
    heading: endpoint.name,
    ...(aboutListings ? { note: LISTED_NOTE } : {}),
    path: `/${endpoint.version}/${endpoint.name}`,
    options: { query },
  };
}

const MGET: Example = {
  heading: 'property/component_mget',
  note: 'Several endpoints for several items in one call: `components` in the query string, the items (with `meta`) in a POST body. One chunk per item, in order; one section per component; `meta` echoed.',
  path: '/v2/property/component_mget',
  options: {
    query: { components: 'property/value,property/rental_value,property/block_crime' },
    body: [
      { ...VALMONTE, meta: 'crm-1001' },
      { address: '7500 Melrose Ave', zipcode: '90046', meta: 'crm-1002' },
    ],
  },
};

const NO_CONTENT: Example = {
  heading: 'An address that does not resolve',
  note: 'Any address containing NOMATCH, and a stable few percent of others: `address_info.status.match` is false and every section is 204, not charged.',
  path: '/v2/property/value',
  options: { body: [{ address: '1 NOMATCH Rd', zipcode: '90274', meta: 'crm-1003' }] },
};

const BAD_REQUEST: Example = {
  heading: '400: a request that breaks a rule',
  note: 'The message names the item (from 0) and the rule.',
  path: '/v2/block/crime',
  options: { body: [BLOCK, { block_id: '06037670324' }] },
};

const UNAUTHORISED: Example = {
  heading: '401: wrong credentials',
  note: 'An empty body, as the spec says.',
  path: '/v2/property/value',
  options: { query: VALMONTE, credentials: 'sandbox:wrong' },
};

/** Not on the page: it uses up most of the second's allowance before RATE_LIMITED. */
const FILL_WINDOW: Example = { heading: '', path: '/v2/property/geocode', options: { body: Array.from({ length: 4 }, () => VALMONTE) } };

const RATE_LIMITED: Example = {
  heading: '429: over the rate limit',
  note: 'Started with `--rate-limit 5/1,250/60`, after a POST of 4 items in the same second: 2 more components would pass the 5 a second allows. Every response carries the four headers, one value per window; Reset is in UTC epoch seconds.',
  path: '/v2/property/geocode',
  options: { body: [VALMONTE, VALMONTE] },
  headers: ['X-RateLimit-Period', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
};

const CREDIT_EXHAUSTED: Example = {
  heading: '402: the request costs more than the credit left',
  note: 'Started with `--credit 0.1`: property/value lists at 0.25 USD.',
  path: '/v2/property/value',
  options: { query: VALMONTE },
};

const USAGE: Example = {
  heading: `GET ${USAGE_PATH}`,
  note: "The sandbox's own report (not part of the service), here after the component_mget example above: components used, charges and credit left.",
  path: USAGE_PATH,
  options: {},
};

const fence = (language: string, text: string) => ['```' + language, text, '```'];
const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const anchor = (heading: string) =>
  `#${heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-')}`;

function render(example: Example, reply: Reply): string[] {
  const method = example.options.body === undefined ? 'GET' : 'POST';
  const lines = [`## ${example.heading}`, ''];
  if (example.note) lines.push(example.note, '');
  // `/` and `,` need no escaping in a query string: the spec's examples write components plainly.
  const target = pathWithQuery(example.path, example.options.query).replace(/%2F/g, '/').replace(/%2C/g, ',');
  lines.push(...fence('http', `${method} ${target}`));
  if (example.options.body !== undefined) lines.push('', ...fence('json', pretty(example.options.body)));
  const headers = (example.headers ?? []).map((name) => `${name}: ${reply.headers.get(name)}`);
  lines.push('', 'Response:', '', ...fence('http', [`HTTP ${reply.status}`, ...headers].join('\n')));
  if (reply.text !== '') lines.push('', ...fence('json', pretty(reply.json)));
  return [...lines, ''];
}

/** Runs the examples against sandboxes started with `options` (and the fixed clock), in order. */
async function answers(options: SandboxOptions, examples: readonly Example[]): Promise<Map<Example, Reply>> {
  const sandbox: RunningSandbox = await startSandbox({ now: () => NOW, ...options });
  try {
    const replies = new Map<Example, Reply>();
    for (const example of examples) replies.set(example, await call(sandbox, example.path, example.options));
    return replies;
  } finally {
    await sandbox.close();
  }
}

/**
 * Where the page shows an endpoint's answer: a beyond-spec form answers as the endpoint it mirrors
 * and every component_mget as the property-level one, so those are shown once, there.
 */
const shownUnder = (endpoint: Endpoint) =>
  endpoint.mget ? MGET.heading : endpoint.beyondSpec && endpoint.mirrors ? endpoint.mirrors : endpoint.name;

const DATA_EXAMPLES = ENDPOINTS.filter((endpoint) => !endpoint.mget && shownUnder(endpoint) === endpoint.name).map(endpointExample);

async function page(): Promise<{ text: string; replies: Map<Example, Reply> }> {
  const replies = new Map([
    ...(await answers({ rateLimits: [], credit: 1_000 }, DATA_EXAMPLES)),
    ...(await answers({}, [MGET, USAGE, NO_CONTENT, BAD_REQUEST, UNAUTHORISED])),
    ...(await answers(
      {
        rateLimits: [
          { limit: 5, periodSeconds: 1 },
          { limit: 250, periodSeconds: 60 },
        ],
      },
      [FILL_WINDOW, RATE_LIMITED],
    )),
    ...(await answers({ credit: 0.1 }, [CREDIT_EXHAUSTED])),
  ]);
  const shown = [...DATA_EXAMPLES, MGET, NO_CONTENT, BAD_REQUEST, UNAUTHORISED, RATE_LIMITED, CREDIT_EXHAUSTED, USAGE];
  const contents = ENDPOINTS.map(
    (endpoint) => `| [${endpoint.name}](${anchor(shownUnder(endpoint))}) | ${endpoint.description} | ${endpoint.price} |`,
  );
  const text = [
    '# Example responses',
    '',
    `<!-- Generated by test/sandbox/examples.test.ts from what the sandbox answers; do not edit by hand. To rewrite it: ${UPDATE} -->`,
    '',
    'One request and its response for every endpoint of the catalog, as the built-in sandbox answers',
    'them (`propdata sandbox`, or `--sandbox` on any command), then a component_mget call, a 204, the',
    'errors and the usage report. The data is synthetic: the same request gets the same answer on any',
    'machine, but it is not real property data. The clock was fixed at 2025-06-01 for this page.',
    '',
    'Requests are shown as paths below the base URL. Every request carries HTTP Basic credentials: key',
    `\`sandbox\`, secret \`sandbox\` by default. The test key \`${TEST_KEY_PREFIX}sandbox\` (same secret) may only query the`,
    'test items below: for any other item every section is 204 (not charged) and, at property level,',
    '`address_info.status` has match false and the error "test key: item not in the test list". Each',
    'section with api_code 0 is charged at its list price (`--price endpoint=USD` changes one).',
    '',
    '| endpoint | what | list price (USD per component) |',
    '| --- | --- | --- |',
    ...contents,
    '',
    'Test items:',
    '',
    ...fence('json', pretty(TEST_ITEMS)),
    '',
    ...shown.flatMap((example) => render(example, replies.get(example)!)),
  ].join('\n');
  return { text, replies };
}

describe('samples/responses.md, the example responses page', () => {
  it('is what the sandbox answers now', async () => {
    const { text, replies } = await page();
    for (const example of DATA_EXAMPLES) {
      const reply = replies.get(example)!;
      const chunks = reply.json as Record<string, { api_code?: number } | undefined>[];
      expect(chunks[0]?.[example.heading]?.api_code, `${example.heading} should show data, not a 204`).toBe(0);
    }
    expect([RATE_LIMITED, CREDIT_EXHAUSTED, BAD_REQUEST, UNAUTHORISED].map((example) => replies.get(example)!.status)).toEqual([
      429, 402, 400, 401,
    ]);
    if (process.env.PROPDATA_UPDATE_EXAMPLES === '1') {
      writeFileSync(PAGE, text);
      return;
    }
    const committed = existsSync(PAGE) ? readFileSync(PAGE, 'utf8') : '';
    expect(
      committed,
      `samples/responses.md differs from what the sandbox answers now; if the change is intended, rewrite it: ${UPDATE}`,
    ).toBe(text);
  });
});
