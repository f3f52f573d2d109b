import type { Store } from '../store/store-api.js';

/**
 * A job as a run knows it: what it does, and the names it is kept under in the store (its output
 * file may be reached by several paths: docs/guide, "one job, one output").
 */
export interface JobIdentity {
  /** What the job does whatever its output is called (the command on its input): with the job's start, the owner of its claims. */
  command: string;
  /**
   * The names it is kept under, the one it begins under first. Asked as the run opens the store, and
   * again once it has opened its output (a file made or replaced since has a new identity).
   */
  names(): Promise<readonly string[]>;
}

export const identityOf = (job: string | JobIdentity): JobIdentity =>
  typeof job === 'string' ? { command: job, names: () => Promise.resolve([job]) } : job;

/** The job's names in the store, and when it began: the earliest start of a running job under any of them. */
export interface JobNames {
  identity: JobIdentity;
  since: number;
  /** Every name the job is kept under by now. */
  named: Set<string>;
}

/** Continues the job under whichever of its names is running, or begins it; every other name is begun at its start too. */
export async function beginJobNamed(store: Store, account: string, identity: JobIdentity): Promise<JobNames> {
  const names = [...new Set(await identity.names())];
  const starts = await Promise.all(names.map((name) => store.jobSince(account, name)));
  const running = starts.filter((start): start is number => start !== undefined);
  const since = running.length > 0 ? Math.min(...running) : await store.beginJob(account, names[0]!);
  const job: JobNames = { identity, since, named: new Set(names.filter((_, i) => starts[i] !== undefined)) };
  await nameJob(store, account, job, names);
  return job;
}

/** The names among `names` the job is not kept under yet, begun at its start. */
export async function nameJob(store: Store, account: string, job: JobNames, names: readonly string[]): Promise<void> {
  for (const name of names) {
    if (job.named.has(name)) continue;
    await store.nameJob(account, name, job.since);
    job.named.add(name);
  }
}
