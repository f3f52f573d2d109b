import { writeFile } from 'node:fs/promises';
import { OutputError } from '../errors/index.js';
import { cannotWrite } from './sink.js';

/**
 * `--report FILE`: the run's summary as JSON. The batch writes it last, once the summary and the
 * resume command are out, so that a report that cannot be written (a full disk, `/dev/full`) is
 * one line naming it after everything the run had to say, not an "unexpected error".
 */
export async function writeReport(path: string, report: object): Promise<void> {
  try {
    await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    const failure = cannotWrite(error, `--report ${path}`);
    throw new OutputError(`${failure.message}; the records are written, only the report is not`, error);
  }
}
