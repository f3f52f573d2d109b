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

/**
 * `--report FILE` as a run starts: outcome `running`, so that a run killed before it could write
 * its summary (kill -9, the OOM killer, a power cut) never leaves the previous run's "completed"
 * there. Resolves to why it could not be written, for a warning: the run goes on.
 */
export async function markReportRunning(path: string, startedAt: Date): Promise<Error | undefined> {
  const report = {
    outcome: 'running',
    startedAt: startedAt.toISOString(),
    pid: process.pid,
    note: 'the run has not finished; if no process is running it, it was killed: run it again to continue',
  };
  try {
    await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
    return undefined;
  } catch (error) {
    return cannotWrite(error, `--report ${path}`);
  }
}
