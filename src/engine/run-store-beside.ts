import { StoreError } from '../errors/index.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import type { KeptAnswers } from '../pipeline/kept-answers.js';
import { pendingDir, writePending } from '../store/pending.js';
import type { Clock } from '../throttle/clock.js';
import { keptAnswersOf, requestRecordOf, runName, type RunStore, type SessionRuns, type SpendSettings } from './run-store.js';

export interface RunStoreBesideSettings {
  /** The SQLite file the store is in (or will be). */
  path: string;
  account: string;
  clock: Clock;
  runLabel: string;
}

/**
 * A run's store left unopened: what it buys is left beside the file (store/pending.ts) for the
 * store's next opening to apply, as a record of its own. For a one-off on a file no other process
 * has open: with no other job to share a pacer or claims with, and nothing to look up (no
 * --max-age), opening the store would only cost it (loading SQLite and the store's modules and
 * opening the file took a third of a one-off's time: BENCHMARKS.md, start-up). Every section is
 * bought; nothing is claimed, paced with others or remembered but the record.
 */
export function runsBeside(settings: RunStoreBesideSettings): SessionRuns {
  const run = runName(settings.clock.now(), settings.runLabel);
  return {
    run,
    pacer: () => undefined,
    windows: () => Promise.resolve(undefined),
    openRun: ({ target, prices }) => Promise.resolve(runStoreBeside(settings, target, { account: settings.account, run, prices })),
    close: () => Promise.resolve(),
  };
}

/** One job's store beside the file: every section bought, each answer's record left beside it. */
function runStoreBeside(settings: RunStoreBesideSettings, target: QueryTarget, spend: SpendSettings): RunStore {
  const { clock } = settings;
  const every = sectionKeys(target).map((_, s) => s);
  let fail!: (error: unknown) => void;
  const failure = new Promise<never>((_, reject) => (fail = reject));
  failure.catch(() => undefined);
  const kept: KeptAnswers = {
    failure,
    resolve: (items) => Promise.resolve(items.map(() => ({ kind: 'buy', sections: every, kept: {}, saving: { sections: 0, usd: 0 } }))),
    claim: (requests) => Promise.resolve(requests.map(() => true)),
    record(exchange) {
      try {
        writePending(pendingDir(settings.path), {
          request: requestRecordOf(spend, exchange, clock.now()),
          windows: exchange.windows,
          answers: exchange.status === 200 ? keptAnswersOf(exchange) : [],
        });
      } catch (error) {
        // The answer is out and paid for: a record that cannot be left costs the record (a stop
        // that says so), never the answer, nor a second request.
        fail(new StoreError(`cannot leave this answer's record beside the store ${settings.path}: ${(error as Error).message}`, error));
      }
    },
    release: () => undefined,
    flush: () => Promise.resolve(),
  };
  return {
    kept,
    monthToDateCost: () => Promise.resolve(0),
    finishJob: () => Promise.resolve(),
    problems: () => ({ damaged: 0, notes: [] }),
    close: () => Promise.resolve(),
  };
}
