import { UsageError } from '../errors/index.js';
import { fileLines } from './file-lines.js';

/**
 * The retry journal, `<output>.propdata-retry`: the records of rows sent again by a resume,
 * appended as their answers come (they were paid for), one JSON line each, `{"row":N,"text":...}`
 * with the record's exact output text. They replace the rows' `error` records when the journal
 * is merged into the output: at the end of the run, or at the start of the next one after a kill.
 */
export interface RetriedRecord {
  row: number;
  text: string;
}

export const journalPathFor = (outputPath: string) => `${outputPath}.propdata-retry`;

export function journalLine(row: number, text: string): string {
  return `${JSON.stringify({ row, text })}\n`;
}

function parsedEntry(text: string): RetriedRecord | undefined {
  try {
    const entry = JSON.parse(text) as Partial<RetriedRecord> | null;
    const { row, text: recordText } = entry ?? {};
    return Number.isSafeInteger(row) && row! > 0 && typeof recordText === 'string' && recordText.endsWith('\n')
      ? { row: row!, text: recordText }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The journal's entries in ascending row order, streamed. A last line cut short by a kill is
 * left out: its row keeps its `error` record and is sent again. Anything else out of shape is a
 * UsageError, since merging it could put a record in the wrong place.
 */
export async function* readJournal(outputPath: string): AsyncGenerator<RetriedRecord> {
  const path = journalPathFor(outputPath);
  const fix = 'delete it (its rows are sent again) or run without --resume to start over';
  let line = 0;
  let previous = 0;
  for await (const { text, terminated } of fileLines(path)) {
    if (!terminated) return;
    line += 1;
    const entry = parsedEntry(text);
    if (!entry) throw new UsageError(`${path} line ${line} is not a retried record: ${fix}`);
    if (entry.row <= previous) throw new UsageError(`${path} line ${line} has row ${entry.row} after row ${previous}: ${fix}`);
    previous = entry.row;
    yield entry;
  }
}
