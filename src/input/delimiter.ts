import { UsageError } from '../errors/index.js';

/** The delimiters a CSV header is tried with, comma first (it wins a tie). */
const CANDIDATES = [',', ';', '\t', '|'] as const;

/**
 * `--delimiter`: one character; `tab` and `\t` spell a tab. Here rather than beside the reader
 * that uses it: the option's parser loads with the command tree at every start, and the reader
 * loads csv-parse.
 */
export function parseDelimiter(value: string): string {
  const delimiter = value === 'tab' || value === '\\t' ? '\t' : value;
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new UsageError(`--delimiter ${value}: expected one character such as ; or | (or tab)`, 'E_USAGE_DELIMITER');
  }
  return delimiter;
}

/** How a delimiter is named in a message. */
function delimiterName(delimiter: string): string {
  return delimiter === '\t'
    ? 'tab'
    : delimiter === ';'
      ? 'semicolon'
      : delimiter === '|'
        ? 'pipe'
        : delimiter === ','
          ? 'comma'
          : `"${delimiter}"`;
}

/** What chose a CSV's delimiter: --delimiter, Excel's `sep=;` first line, a .tsv/.tab name, or the header line. */
export type DelimiterSource = 'option' | 'sep-line' | 'file-name' | 'header';

export interface ChosenDelimiter {
  char: string;
  source: DelimiterSource;
}

const SAID_BY: Readonly<Record<DelimiterSource, (char: string) => string>> = {
  option: () => 'as --delimiter says',
  'sep-line': (char) => `as its first line sep=${char} says`,
  'file-name': () => 'as its .tsv or .tab name says',
  header: () => 'as its header line has it',
};

/**
 * The one line stderr gets for a delimiter that is not a comma, whatever chose it: a file read
 * with the wrong one is one column per line, and this names the one used and how to choose another.
 */
export function delimiterNote({ char, source }: ChosenDelimiter): string {
  const other = source === 'option' ? '' : ' (--delimiter chooses another)';
  return `reading the CSV with the ${delimiterName(char)} as its delimiter, ${SAID_BY[source](char)}${other}`;
}

/**
 * The delimiter of a CSV from its first non-blank line (the header): the candidate that occurs
 * most often outside quotes, a comma on a tie or when none occurs. A European spreadsheet's
 * export (`address;city;zipcode`) and a tab-separated file without a .tsv name are read as such
 * instead of as one column per line.
 */
export function sniffDelimiter(head: string): string {
  const text = head.replace(/^\uFEFF/, '');
  const counts = new Map<string, number>(CANDIDATES.map((candidate) => [candidate, 0]));
  let quoted = false;
  let started = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) {
      if (started) break;
    } else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
    if (char.trim() !== '') started = true;
  }
  let best: string = ',';
  for (const candidate of CANDIDATES) if (counts.get(candidate)! > counts.get(best)!) best = candidate;
  return best;
}
