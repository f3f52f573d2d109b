import { existsSync } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OutputError, PropdataError, UsageError } from '../errors/index.js';
import type { AppendableFormat } from '../output/record-text.js';
import { readStoredOutput } from './output-records.js';
import { journalPathFor, readJournal } from './retry-journal.js';
import { syncDirectory } from './sync-to-disk.js';

const mergePathFor = (outputPath: string) => `${outputPath}.propdata-tmp`;

/** Text gathered into writes of about this size: a write per record would cost a call each. */
const WRITE_CHARS = 64 * 1024;

/** Appends text to `file` in large writes; memory stays at one write's worth. */
function batchedWriter(file: FileHandle) {
  let pending = '';
  const flush = async () => {
    const text = pending;
    pending = '';
    // writeFile on a handle writes all of it from the current position (write() may write part).
    await file.writeFile(text);
  };
  return {
    async write(text: string) {
      pending += text;
      if (pending.length >= WRITE_CHARS) await flush();
    },
    flush,
  };
}

async function writeMerged(outputPath: string, format: AppendableFormat, inputColumns: readonly string[], file: FileHandle): Promise<void> {
  const { header, records } = await readStoredOutput(outputPath, format, inputColumns);
  const journal = readJournal(outputPath);
  const out = batchedWriter(file);
  try {
    await out.write(header ?? '');
    let retried = await journal.next();
    let count = 0;
    for await (const record of records) {
      count = record.row;
      if (!retried.done && retried.value.row === record.row) {
        await out.write(retried.value.text);
        retried = await journal.next();
      } else {
        await out.write(record.text);
      }
    }
    if (!retried.done) {
      throw new UsageError(
        `${journalPathFor(outputPath)} holds a record for row ${retried.value.row} but ${outputPath} has ${count} records: ` +
          'restore the output, or run without --resume to start over',
      );
    }
  } finally {
    // Closes the journal's file when the output's records ended the merge early.
    await journal.return(undefined);
  }
  await out.flush();
  // The merged file replaces the output: it keeps the output's permissions.
  await file.chmod((await stat(outputPath)).mode);
  await file.sync();
}

/**
 * Puts the retried records of the journal in place of the rows' `error` records. Streamed: the
 * output's records (rows 1..N, checked) and the journal's entries (ascending rows) are read side
 * by side into `<output>.propdata-tmp`, which is synced and renamed over the output; only then is
 * the journal deleted. A kill at any point leaves the output and the journal as they were, or
 * the merged output with a journal whose records it already holds: merging again is harmless.
 * A torn last record of the output is left out, as a resume would cut it off.
 */
export async function mergeRetries(outputPath: string, format: AppendableFormat, inputColumns: readonly string[]): Promise<void> {
  const journal = journalPathFor(outputPath);
  if (!existsSync(journal)) return;
  const temp = mergePathFor(outputPath);
  try {
    const file = await open(temp, 'w');
    try {
      await writeMerged(outputPath, format, inputColumns, file);
    } finally {
      await file.close();
    }
    await rename(temp, outputPath);
  } catch (error) {
    await rm(temp, { force: true });
    if (error instanceof PropdataError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new OutputError(
      `cannot merge the retried records into ${outputPath}: ${reason}; they are kept in ${journal}, and a run with --resume merges them`,
      error,
    );
  }
  await syncDirectory(dirname(outputPath));
  await rm(journal);
}

/** A journal (or half a merge) left beside an output that is being started over belongs to the old file: it must never be merged into the new one. */
export async function discardRetries(outputPath: string): Promise<void> {
  await rm(journalPathFor(outputPath), { force: true });
  await rm(mergePathFor(outputPath), { force: true });
}
