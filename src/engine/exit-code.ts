import { asError, EXIT, PropdataError } from '../errors/index.js';
import type { JobOutcome } from './run-job.js';

/**
 * The exit code a job's outcome means (the README's table): the stopping condition's own, 130 for
 * a stop by signal, 3 when rows failed, else 0. A stop by something that is not a PropdataError is
 * a failure of propdata itself: it is thrown, for main() to report as one.
 */
export function exitCodeOf(outcome: Pick<JobOutcome, 'fatal' | 'interrupted' | 'records'>): number {
  const { fatal } = outcome;
  if (fatal !== undefined) {
    if (fatal instanceof PropdataError) return fatal.exitCode;
    throw asError(fatal);
  }
  if (outcome.interrupted) return EXIT.interrupted;
  return outcome.records.invalid_input + outcome.records.error > 0 ? EXIT.someItemsFailed : EXIT.ok;
}
