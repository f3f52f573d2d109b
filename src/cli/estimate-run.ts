import { DEDUPE_CAPACITY } from '../engine/run-job.js';
import { budgetLimits } from '../engine/budget-limits.js';
import type { JobIdentity } from '../engine/job-names.js';
import { lackingIn } from '../engine/run-store.js';
import type { Io } from './io.js';
import type { QueryTarget } from '../model/query-target.js';
import { fixedParams } from './query-params.js';
import type { BatchOptions } from './commands/query-options.js';
import { PropdataError } from '../errors/index.js';
import { EXIT } from './exit-codes.js';
import { DEFAULT_THROTTLE_POLICY } from '../policy/policy.js';
import { estimateRun, formatEstimate } from '../pipeline/estimate.js';
import { sectionPricesOf } from '../pipeline/pricing.js';
import { jobOf } from './batch-job.js';
import { storePathFrom } from '../store/store-path.js';
import { resolveRunDefaults } from './run-defaults.js';
import { prepareInput, recordShapeOf } from './batch-input.js';

/** `--dry-run` and `propdata estimate`: read and validate everything, send nothing. */
export async function runEstimate(target: QueryTarget, options: BatchOptions, io: Io): Promise<number> {
  const params = fixedParams(target, options);
  const { rows, prepare, inputColumns, metaColumn } = await prepareInput(target, options, params, io);
  const runDefaults = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const sectionPrices = sectionPricesOf(target, options.price);
  // Only what the store cannot answer would be sent: what an unfinished run of this job bought, and
  // with --max-age what is younger. Nothing is counted for --max-cost-month without a store.
  const storePath = storePathFrom(options.store, io.env);
  const kept =
    storePath === undefined
      ? undefined
      : await openStoreToEstimate(
          storePath,
          target,
          options,
          io.env,
          runDefaults.maxAgeMs,
          jobOf(options, recordShapeOf(target, options, params, inputColumns, metaColumn)),
        );
  try {
    const monthToDate = kept && runDefaults.maxCostMonth !== undefined ? await kept.monthToDateCost() : 0;
    const estimate = await estimateRun(rows, prepare, {
      target,
      batchSize: target.getOnly ? 1 : options.batchSize,
      dedupeCapacity: options.dedupe ? DEDUPE_CAPACITY : 0,
      sectionPrices,
      ratePerMinute: options.rate,
      probeComponents: DEFAULT_THROTTLE_POLICY.firstRequestComponents,
      limits: budgetLimits(
        { maxComponents: options.maxComponents, maxCost: options.maxCost, maxCostMonth: runDefaults.maxCostMonth },
        () => monthToDate,
      ),
      ...(kept ? { lacking: kept.lacking } : {}),
    });
    io.stdout.write(
      options.json ? `${JSON.stringify({ ...estimate, ratePerMinute: options.rate }, null, 2)}\n` : formatEstimate(estimate, options.rate),
    );
  } finally {
    await kept?.close();
  }
  return EXIT.ok;
}

/** The store read only, for the account the credentials name: what an estimate needs of it. Undefined when there is no store yet. */
export async function openStoreToEstimate(
  path: string,
  target: QueryTarget,
  options: BatchOptions,
  env: Io['env'],
  maxAgeMs: number | undefined,
  job: JobIdentity,
) {
  const { openExistingStore, currentAccount } = await import('../store/index.js');
  // An estimate needs no credentials: without them, no account's answers are counted as kept.
  const account = await currentAccount(options, env).catch((error: unknown) => {
    if (error instanceof PropdataError && error.code === 'E_NO_CREDENTIALS') return undefined;
    throw error;
  });
  const store = account === undefined ? undefined : await openExistingStore(path, { readonly: true });
  if (!store || account === undefined) return undefined;
  try {
    const starts = await Promise.all((await job.names()).map((name) => store.jobSince(account, name)));
    const running = starts.filter((start): start is number => start !== undefined);
    const since = running.length > 0 ? Math.min(...running) : undefined;
    return {
      since,
      lacking: lackingIn(store, account, target, { maxAgeMs, since }),
      monthToDateCost: () => store.monthToDateCost(account),
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
