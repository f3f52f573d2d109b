import { GATEWAY_DEFAULTS } from '../../gateway/defaults.js';
import type { OptionSpec } from '../../options/option-spec.js';
import { JOB_DEFAULTS } from '../../engine/job-defaults.js';
import { ACCOUNT_OPTIONS, CONNECTION_OPTIONS, duration, durationText, integerIn, positiveNumber, STORE_FILE_OPTIONS } from '../options.js';

/** The connection options a gateway takes to reach the service: its credentials, --timeout, --max-retries, --no-proxy-env, --verbose. */
const UPSTREAM_OPTIONS = CONNECTION_OPTIONS.filter((option) =>
  ['--timeout', '--max-retries', '--no-proxy-env', '--verbose'].includes(option.flags.split(' ')[0]!),
);

/** `propdata serve`'s options, in the order --help and the reference list them. */
export const SERVE_OPTIONS = [
  {
    flags: '--port <port>',
    description: 'port to listen on (0 picks a free one)',
    parse: integerIn(0, 65_535),
    defaultValue: GATEWAY_DEFAULTS.port,
  },
  {
    flags: '--host <host>',
    description: "interface to listen on; one other than this machine's loopback needs --tls-cert and --tls-key, or --insecure-plain-http",
    defaultValue: GATEWAY_DEFAULTS.host,
  },
  { flags: '--tls-cert <file>', description: 'serve HTTPS with this PEM certificate (its chain after it)' },
  { flags: '--tls-key <file>', description: 'the PEM private key of --tls-cert' },
  {
    flags: '--insecure-plain-http',
    description: 'listen on another address than the loopback without TLS: keys, secrets and answers cross the network in the clear',
  },
  {
    flags: '--trust-proxy <addresses>',
    description:
      'the IP addresses of proxies in front of the gateway (comma-separated): their X-Forwarded-For names the client, for the failed-login throttle, the log and the status page',
    parse: (value: string, previous?: unknown) => [
      ...((previous as string[] | undefined) ?? []),
      ...value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    ],
  },
  {
    flags: '--log-format <format>',
    description: 'the line per request on stdout: text, or json (one object a line)',
    choices: ['text', 'json'],
    defaultValue: 'text',
  },
  {
    flags: '--admin-key <key>',
    description: "the status page's and /metrics' password (user admin); default: a new one each start, printed",
    env: 'PROPDATA_ADMIN_KEY',
  },
  {
    flags: '--max-age <duration>',
    description: `answer from the store when every section is younger than this; a request may ask otherwise (header X-Propdata-Max-Age). Default: config max-age, else ${durationText(GATEWAY_DEFAULTS.maxAgeMs)}`,
    parse: duration,
  },
  {
    flags: '--max-wait <duration>',
    description: `longest a request waits for the rate limit before its 429; a request may ask for less (header X-Propdata-Max-Wait). Default ${durationText(GATEWAY_DEFAULTS.maxWaitMs)}`,
    parse: duration,
  },
  {
    flags: '--max-cost-month <usd>',
    description: "refuse (402) what would pass the account's cost this UTC month, at list price (default: config max-cost-month)",
    parse: positiveNumber,
  },
  ...STORE_FILE_OPTIONS,
  {
    flags: '--concurrency <n>',
    description: 'requests to the service in flight at once',
    parse: integerIn(1, 64),
    defaultValue: GATEWAY_DEFAULTS.concurrency,
  },
  {
    flags: '--rate <components>',
    description: 'components per minute until the service reports its limits',
    parse: positiveNumber,
    defaultValue: JOB_DEFAULTS.ratePerMinute,
  },
  ...ACCOUNT_OPTIONS,
  ...UPSTREAM_OPTIONS,
  { flags: '-q, --quiet', description: 'no line per request' },
] as const satisfies readonly OptionSpec[];
