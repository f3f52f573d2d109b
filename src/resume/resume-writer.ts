import { openOutput, outputFormatFor, type OutputSettings } from '../output/open-output.js';
import { csvHeaderText, recordTextRenderer } from '../output/record-text.js';
import type { OutputWriter } from '../output/record-writer.js';
import { openSink } from '../output/sink.js';
import { WrittenRecords } from '../output/written-records.js';
import { checkCsvHeader } from './check-header.js';
import { mergeRetries } from './merge-retries.js';
import { journalLine, journalPathFor } from './retry-journal.js';
import { syncFile } from './sync-to-disk.js';

export interface ResumeWriterSettings extends OutputSettings {
  /** A CSV or JSONL file: what planOutput found resumable. */
  path: string;
  /** As the plan: records of rows from here on are appended. */
  startRow: number;
  /** As the plan: rows before startRow sent again, whose records replace their `error` ones. */
  retryRows: readonly number[];
}

/**
 * The writer of a resumable output. Records of rows from startRow on are appended to the output
 * as by openOutput. Records of retried rows (before startRow) go, formatted exactly as the output
 * formats them, to the retry journal beside it as they come, so that an answer paid for survives
 * a kill; close() merges them into the output in place of the `error` records (planOutput merges
 * a journal a killed run left). close() also puts the output on disk, so that the record count
 * recordProgress stores after it never runs ahead of the file.
 */
export async function openResumeWriter(settings: ResumeWriterSettings): Promise<OutputWriter> {
  const { path, startRow } = settings;
  const format = outputFormatFor(path, settings.format);
  if (format === 'json' || format === 'xlsx') throw new Error(`a ${format} output cannot be resumed`);
  if (settings.append && format === 'csv') await checkCsvHeader(path, csvHeaderText(settings));
  const output = await openOutput(settings);
  const journal =
    settings.retryRows.length > 0
      ? await openSink(journalPathFor(path), settings.stdout, true).catch(async (error: unknown) => {
          await output.close();
          throw error;
        })
      : undefined;
  const text = recordTextRenderer(format, settings);
  const journaled = journal && new WrittenRecords(journal);
  let retryAt = 0;
  /** Whether `row` is one to retry: records come in row order, so the list is walked once. */
  const isRetried = (row: number) => {
    while (retryAt < settings.retryRows.length && settings.retryRows[retryAt]! < row) retryAt += 1;
    return settings.retryRows[retryAt] === row;
  };
  const failed = journal ? Promise.race([output.failed, journal.failed]) : output.failed;
  // As Sink.failed: nobody has to listen.
  failed.catch(() => undefined);
  return {
    failed,
    write(record) {
      if (record.row >= startRow) return output.write(record);
      // The output holds this row's record already: only an `error` one may be replaced.
      if (!journal || !isRetried(record.row))
        throw new Error(`row ${record.row} is before row ${startRow} and not among the rows to retry`);
      const line = journalLine(record.row, text(record));
      journaled?.wrote(line, record);
      return journal.write(line);
    },
    // A retried record is in the journal, which the merge puts in the output: one the journal lacks is not in the file either.
    unwritten: () => [...(journaled?.unwritten() ?? []), ...(output.unwritten?.() ?? [])],
    async close() {
      try {
        await output.close();
      } finally {
        await journal?.close();
      }
      // Merged even when no retried record came (a stop before the first answer): then it is
      // a plain copy, and no journal is left behind for the next run to wonder about.
      if (journal) await mergeRetries(path, format, settings.inputColumns);
      else await syncFile(path);
    },
  };
}
