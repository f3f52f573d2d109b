import { StoreError } from '../errors/index.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import { itemRefOf } from '../model/section-refs.js';
import type { KeptAnswers } from '../pipeline/kept-answers.js';
import type { Exchange } from '../pipeline/send-batch.js';
import { pendingDir, pendingName, removePending, writeClaimIntent, writePending } from '../store/pending.js';
import { openElsewhere } from '../store/sqlite/open-elsewhere.js';
import type { SectionClaim } from '../store/store-api.js';
import type { Clock } from '../throttle/clock.js';
import { CLAIMS } from '../policy/policy.js';
import {
  keptAnswersOf,
  requestRecordOf,
  runName,
  type RunStore,
  type RunStoreJob,
  type SessionRuns,
  type SpendSettings,
} from './run-store.js';

export interface RunStoreBesideSettings {
  /** The SQLite file the store is in (or will be). */
  path: string;
  account: string;
  clock: Clock;
  runLabel: string;
  /** Opens the store after all, as any session opens it, keeping its name (`run`): its claims left beside are its own. */
  open(run: string): Promise<SessionRuns>;
}

/** One job beside the store: what it buys, and how it opens the store after all (its session's, once). */
interface BesideJob {
  path: string;
  target: QueryTarget;
  clock: Clock;
  /** The job's store on the store opened after all. */
  open(): Promise<RunStore>;
}

/** What a run beside its store shares: its name, its intent's name, and the store once it had to open it. */
interface Beside {
  settings: BesideJob;
  spend: SpendSettings;
  dir: string;
  /** The name of the one file it leaves beside the store: its claim, then its answer's record. */
  name: string;
  /** Its answer's record has replaced its claim. */
  answered?: boolean;
  opened?: Promise<RunStore>;
}

/** The claims on every section of the items a request sends. */
function claimsFor(beside: Beside, items: readonly { item: { item: Record<string, string | number> } }[]): SectionClaim[] {
  return items.flatMap(({ item }) => {
    const ref = itemRefOf(beside.settings.target, item.item);
    return ref.sections.map((section) => ({ item: ref.item, ...section }));
  });
}

/** The store, opened once (a process opened it while this run was beside it: a job this run must claim and answer beside). */
function opened(beside: Beside): Promise<RunStore> {
  beside.opened ??= beside.settings.open();
  return beside.opened;
}

/**
 * Once the store is open elsewhere, a process there may wait on this run's claim: the store is
 * opened (which applies this run's record, releasing the claim) and closed (which releases what
 * is left of it, a failed request's).
 */
async function handOver(beside: Beside): Promise<void> {
  if (beside.opened === undefined && !openElsewhere(beside.settings.path)) return;
  const store = await opened(beside);
  await store.kept.flush();
}

/**
 * A session's store left unopened: what its jobs buy is left beside the file (store/pending.ts) for
 * the store's next opening to apply, as a record of its own. For a one-off on a file no other
 * process has open: with no other job to share a pacer with, and nothing to look up (no --max-age),
 * opening the store would only cost it (loading SQLite and the store's modules and opening the file
 * took a third of a one-off's time: BENCHMARKS.md, start-up).
 *
 * It still claims what it buys (PROTOCOL.md, rule 7): before sending, it leaves its claim beside the
 * file, which a process opening the store meanwhile applies (a batch then waits for its answer);
 * then, when the store is open elsewhere (it may have opened before the claim was left), it opens
 * the store itself, under the session's name, and runs as any run does from there. Its answer's
 * record replaces its claim, and is applied at once when the store is open elsewhere.
 */
export function runsBeside(settings: RunStoreBesideSettings): SessionRuns {
  const run = runName(settings.clock.now(), settings.runLabel);
  let opened: Promise<SessionRuns> | undefined;
  const open = () => (opened ??= settings.open(run));
  return {
    run,
    pacer: () => undefined,
    windows: () => Promise.resolve(undefined),
    // What it claims is beside the store, in files, not held here.
    claimsHeld: () => 0,
    openRun: (job) => Promise.resolve(runStoreBeside(settings, run, job, () => open().then((runs) => runs.openRun(job)))),
    async close() {
      // A store it failed to open failed its job already.
      const runs = await opened?.catch(() => undefined);
      await runs?.close();
    },
  };
}

/** One job's store beside the file: every section bought, claimed beside it, each answer's record left beside it. */
function runStoreBeside(settings: RunStoreBesideSettings, run: string, job: RunStoreJob, open: () => Promise<RunStore>): RunStore {
  const { clock, path } = settings;
  const beside: Beside = {
    settings: { path, target: job.target, clock, open },
    spend: { account: settings.account, run, prices: job.prices },
    dir: pendingDir(path),
    name: pendingName(clock.now()),
  };
  return {
    kept: keptBeside(beside),
    monthToDateCost: () => Promise.resolve(0),
    finishJob: () => Promise.resolve(),
    problems: () => ({ damaged: 0, notes: [] }),
    close: async (fromStore, savedUsd) => {
      const store = beside.opened && (await beside.opened);
      // Its claim, if still beside the store, is of no use now: its record, once applied, is gone already.
      if (store) removePending(beside.dir, beside.name);
      await store?.close(fromStore, savedUsd);
    },
  };
}

/** The record of a request answered beside the store: the one that answers replaces the claim (same name), others are their own. */
function leaveRecord(beside: Beside, exchange: Exchange): void {
  const { settings } = beside;
  // Only what the answer settles; a request that brought none (a 429, a 5xx) is recorded apart, its claim left standing for the retry.
  const answered = exchange.sent.filter((_, i) => exchange.answers?.[i] !== undefined);
  writePending(
    beside.dir,
    {
      request: requestRecordOf(beside.spend, exchange, settings.clock.now()),
      windows: exchange.windows,
      answers: exchange.status === 200 ? keptAnswersOf(exchange) : [],
      owner: beside.spend.run,
      settles: claimsFor(
        beside,
        answered.map((item) => ({ item })),
      ),
    },
    answered.length > 0 ? beside.name : undefined,
  );
  if (answered.length > 0) beside.answered = true;
}

/** The answers' side beside the store (KeptAnswers): every section bought, claimed beside the file; the opened store's once it had to open it. */
function keptBeside(beside: Beside): KeptAnswers {
  const { settings } = beside;
  const every = sectionKeys(settings.target).map((_, s) => s);
  let fail!: (error: unknown) => void;
  const failure = new Promise<never>((_, reject) => (fail = reject));
  failure.catch(() => undefined);
  const real = async () => (beside.opened ? await beside.opened : undefined);
  return {
    failure,
    resolve: async (items) =>
      (await real())?.kept.resolve(items) ?? items.map(() => ({ kind: 'buy', sections: every, kept: {}, saving: { sections: 0, usd: 0 } })),
    async claim(requests) {
      if (!beside.opened) {
        const claim = {
          account: beside.spend.account,
          owner: beside.spend.run,
          sections: claimsFor(beside, requests),
          expires: Date.now() + CLAIMS.leaseMs,
        };
        writeClaimIntent(beside.dir, beside.name, { claim });
        if (!openElsewhere(settings.path)) return requests.map(() => true);
      }
      const store = await opened(beside);
      store.kept.failure.catch(fail);
      return store.kept.claim(requests);
    },
    record(exchange) {
      if (beside.opened) {
        void beside.opened.then((store) => store.kept.record(exchange));
        return;
      }
      try {
        leaveRecord(beside, exchange);
      } catch (error) {
        // The answer is out and paid for: a record that cannot be left costs the record (a stop
        // that says so), never the answer, nor a second request.
        fail(new StoreError(`cannot leave this answer's record beside the store ${settings.path}: ${(error as Error).message}`, error));
      }
    },
    release(items) {
      if (beside.opened) void beside.opened.then((store) => store.kept.release(items));
      else if (!beside.answered) removePending(beside.dir, beside.name);
    },
    written: async () => (await real())?.kept.written?.(),
    flush: async () => {
      await handOver(beside);
      await (await real())?.kept.flush();
    },
  };
}
