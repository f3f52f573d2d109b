/**
 * A strict reader of Prometheus' text exposition format (0.0.4), as a scraper reads it, for tests:
 * it throws, naming the line, on anything Prometheus would refuse or misread (a sample before its
 * family's TYPE, a family split in two, a bad name or escape, a duplicate series, a histogram whose
 * buckets are not cumulative or whose +Inf bucket is not its count, no final line feed).
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

function number(text: string, where: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: "${text}" is not a number`);
  return Number(text);
}

/** `{a="x",b="y\"z"}` from position `at` of `line`: the labels, and where they end. */
function labelsOf(line: string, at: number, where: string): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at + 1;
  while (line[i] !== '}') {
    const eq = line.indexOf('=', i);
    const name = line.slice(i, eq);
    if (eq < 0 || !LABEL_NAME.test(name)) throw new Error(`${where}: bad label name "${name}"`);
    if (name in labels) throw new Error(`${where}: label ${name} twice`);
    if (line[eq + 1] !== '"') throw new Error(`${where}: label ${name}'s value is not quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j += 1) {
      if (line[j] !== '\\') {
        value += line[j];
        continue;
      }
      const escaped = line[(j += 1)];
      if (escaped === 'n') value += '\n';
      else if (escaped === '\\' || escaped === '"') value += escaped;
      else throw new Error(`${where}: bad escape \\${escaped ?? ''}`);
    }
    if (j >= line.length) throw new Error(`${where}: label ${name}'s value is not closed`);
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i += 1;
    else if (line[i] !== '}') throw new Error(`${where}: expected , or } after label ${name}`);
  }
  return { labels, end: i + 1 };
}

function sampleOf(line: string, where: string): Sample {
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  const nameEnd = brace >= 0 && (space < 0 || brace < space) ? brace : space;
  const name = line.slice(0, nameEnd);
  if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name "${name}"`);
  const { labels, end } = nameEnd === brace ? labelsOf(line, brace, where) : { labels: {}, end: nameEnd };
  const rest = line.slice(end).split(' ');
  if (rest[0] !== '' || rest.length < 2 || rest.length > 3) throw new Error(`${where}: expected " value [timestamp]"`);
  return { name, labels, value: number(rest[1]!, where) };
}

/** The family a sample belongs to: its own name, or a histogram's or summary's base. */
function familyOf(families: Map<string, Family>, name: string): Family | undefined {
  for (const suffix of ['', '_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const family = families.get(name.slice(0, name.length - suffix.length));
    if (family && (suffix === '' || family.type === 'histogram' || family.type === 'summary')) return family;
  }
  return undefined;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(rest);
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([number(le, family.name), sample.value]);
    } else if (sample.name.endsWith('_count')) entry.count = sample.value;
  }
  for (const { buckets, count } of series.values()) {
    const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
    sorted.forEach(([, value], i) => {
      if (i > 0 && value < sorted[i - 1]![1]) throw new Error(`${family.name}: buckets are not cumulative`);
    });
    if (sorted.at(-1)?.[0] !== Infinity || sorted.at(-1)![1] !== count) throw new Error(`${family.name}: the +Inf bucket is not the count`);
  }
}

export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  let current: Family | undefined;
  text
    .slice(0, -1)
    .split('\n')
    .forEach((line, index) => {
      const where = `line ${index + 1}`;
      const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (comment) {
        const [, kind, name, rest] = comment as unknown as [string, string, string, string];
        if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name "${name}"`);
        const family = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
        if (family.samples.length > 0) throw new Error(`${where}: ${kind} of ${name} after its samples`);
        if (kind === 'TYPE') {
          if (!TYPES.includes(rest)) throw new Error(`${where}: unknown type "${rest}"`);
          family.type = rest as Family['type'];
        } else family.help = rest;
        families.set(name, family);
        current = family;
        return;
      }
      if (line.startsWith('#') || line === '') return;
      const sample = sampleOf(line, where);
      const family = familyOf(families, sample.name);
      if (!family) throw new Error(`${where}: ${sample.name} has no TYPE before it`);
      if (family !== current) throw new Error(`${where}: ${sample.name}'s family is split`);
      const series = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
      if (seen.has(series)) throw new Error(`${where}: ${series} twice`);
      seen.add(series);
      family.samples.push(sample);
    });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** The value of `name`'s sample with exactly these labels, or undefined. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = familyOf(families, name);
  return family?.samples.find((sample) => sample.name === name && JSON.stringify(sample.labels) === JSON.stringify(labels))?.value;
}
