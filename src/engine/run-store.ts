import { hostname } from 'node:os';
import type { SendableItem } from '../batching/batch.js';
import { joinChunk, keptParts } from '../model/chunk-frame.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import { itemRefOf, type ItemRef } from '../model/section-refs.js';
import type { KeptAnswers, Purchase, Resolution, Saving } from '../pipeline/kept-answers.js';
import { billedCost } from '../pipeline/pricing.js';
import type { Exchange } from '../pipeline/send-batch.js';
import { takes } from '../store/claim-protocol.js';
import type { FoundItem, Freshness, KeptAnswer, SectionClaim, Store, StoreProblems } from '../store/store-api.js';
import type { RequestRecord } from '../store/spend.js';
import type { Clock } from '../throttle/clock.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { SharedPacer } from '../throttle/shared-pacer.js';
import { CLAIMS } from '../policy/policy.js';

/** The time in the latest run name this process gave. */
let lastNamed = 0;

/**
 * A run's name in the spend log and its claims: when it started, on which machine, its process, and
 * what ran it (`label`: the CLI's command line, a library caller's name for it; `usage --by run` shows it).
 */
export function runName(now: number, label: string): string {
  // Two runs a process starts in one millisecond (library batches) are named a millisecond apart:
  // a name is whose claims are whose, and which requests are which in the spend log.
  lastNamed = Math.max(Math.floor(now), lastNamed + 1);
  return `${new Date(lastNamed).toISOString()} ${hostname()} ${process.pid} ${label}`;
}

/** What was called, as the spend log names it: an endpoint, or an mget's sections joined with commas. */
function endpointOf(target: QueryTarget): string {
  return target.sections.length > 0 ? sectionKeys(target).join(',') : target.path;
}

/** What a request is recorded as in the spend log. */
export interface SpendSettings {
  account: string;
  run: string;
  /** USD at list price per section name. */
  prices: Readonly<Record<string, number>>;
}

/** One request's spend record: every section the request asked for is counted when billed, at its list price (0 outside the catalog). */
export function requestRecordOf(spend: SpendSettings, exchange: Exchange, at: number): RequestRecord {
  const sectionPrices = Object.fromEntries(sectionKeys(exchange.target).map((name) => [name, spend.prices[name] ?? 0]));
  const { billed, cost } = billedCost(exchange.chunks, sectionPrices);
  return {
    at,
    run: spend.run,
    account: spend.account,
    endpoint: endpointOf(exchange.target),
    items: exchange.items,
    components: exchange.components,
    status: exchange.status,
    billed,
    cost,
  };
}

/** The answers a request brought, as the store keeps them: each usable chunk's frame and answered sections, by the item's identity. */
export function keptAnswersOf(exchange: Exchange): KeptAnswer[] {
  const members = sectionKeys(exchange.target);
  const kept: KeptAnswer[] = [];
  exchange.answers?.forEach((chunk, i) => {
    if (chunk === undefined) return;
    const ref = itemRefOf(exchange.target, exchange.sent[i]!.item);
    const { frame, sections } = keptParts(chunk, members);
    const answered = sections.flatMap((body, s) => (body === undefined ? [] : [{ ref: ref.sections[s]!, body }]));
    if (answered.length > 0) kept.push({ item: ref.item, frame, sections: answered });
  });
  return kept;
}

/** The claims on the sections of an item at these indices (all, by default). */
function claimsOf(ref: ItemRef, sections: readonly number[] = ref.sections.map((_, s) => s)): SectionClaim[] {
  return sections.map((s) => ({ item: ref.item, ...ref.sections[s]! }));
}

/** The sections (indices) a found item lacks: missing, stale or damaged. */
function lackingOf(item: FoundItem): number[] {
  return item.sections.flatMap((section, s) => (section === undefined ? [s] : []));
}

/** What the store would leave to buy of each item, for an estimate of a run (nothing is claimed). */
export function lackingIn(store: Store, account: string, target: QueryTarget, freshness: Freshness) {
  return async (items: readonly SendableItem[]): Promise<number[][]> => {
    const found = await store.find(
      account,
      items.map((item) => itemRefOf(target, item.item)),
      freshness,
    );
    return found.map(lackingOf);
  };
}

/** What the run says of the claims it took from other jobs (PROTOCOL.md, rules 3 and 6). */
function tookOverNotes({ lapsed, forced }: { lapsed: number; forced: number }): string[] {
  const sections = (n: number) => `${n.toLocaleString('en-US')} section${n === 1 ? '' : 's'}`;
  return [
    ...(lapsed > 0 ? [`bought ${sections(lapsed)} another run had claimed and stopped renewing (it was stopped or killed)`] : []),
    ...(forced > 0
      ? [
          `bought ${sections(forced)} another run still claimed after waiting ${CLAIMS.waitLimitMs / 60_000} minutes for its answer: that run may buy them too`,
        ]
      : []),
  ];
}

/** What a batch run asks of the store: the answers (KeptAnswers), the windows, the shared pacer, the budget, the job. */
export interface RunStore {
  readonly kept: KeptAnswers;
  /** The windows the service last reported for this account, if still fresh. */
  windows(): Promise<ReportedWindow[] | undefined>;
  /** The pacer shared with the account's other runs on this store (RateLimiter.shareWith); none when the store is not opened. */
  pacer(): SharedPacer | undefined;
  /** Month-to-date cost of the account at list price, for --max-cost-month. */
  monthToDateCost(): Promise<number>;
  /** The run wrote every row with a final answer: the job is complete, and its next run is a new one. */
  finishJob(): Promise<void>;
  /** Damaged sections met, and what else the store wants said once. */
  problems(): StoreProblems;
  /** Records the rows answered from the store and what they saved; gives up the run's claims and share; closes. */
  close(fromStore: number, savedUsd: number): Promise<void>;
}

export interface RunStoreSettings {
  store: Store;
  account: string;
  /**
   * The account whose windows the run paces by, when not `account`: the built-in sandbox's answers
   * are one account whatever its port, but each sandbox is a server of its own, with its own windows.
   */
  pacingAccount?: string;
  target: QueryTarget;
  /** --max-age in ms; undefined: age alone never makes an answer reusable. */
  maxAgeMs: number | undefined;
  /** The job this run belongs to (the same command on the same input and output), when it has one. */
  job?: string;
  /** USD at list price per section name, for the spend records and the savings. */
  prices: Readonly<Record<string, number>>;
  clock: Clock;
  /** What ran it, for its name in the spend log: the command line without credentials, or a library caller's label. */
  runLabel: string;
}

/**
 * The store for one batch run. Everything is filed under the account. The run belongs to a job: an
 * unfinished one (the same command stopped before it wrote every row) is continued, and whatever
 * was bought since it began is reused whatever --max-age says; it was bought for this very job.
 * Sections this run is about to buy are claimed, so that a job running beside it on the same store
 * waits for its answer instead of buying it too; the claims are renewed while the run lives.
 */
export async function openRunStore(settings: RunStoreSettings): Promise<RunStore> {
  const { store, account, target, clock } = settings;
  const members = sectionKeys(target);
  const owner = runName(clock.now(), settings.runLabel);
  // Claims are the job's: a run that continues it (after a kill -9) takes over what the killed run
  // was buying instead of waiting out its lease. Two runs of one job never overlap: the output's lock.
  const claimant = settings.job === undefined ? owner : `job ${settings.job}`;
  // What was bought since the run's job began is reused whatever --max-age says: it was bought for
  // this job. A run of no job (a library batch) is a job of its own from now: an answer another
  // run buys while this one waits for it is this run's too, and nothing is left in the store's jobs.
  const since = settings.job === undefined ? clock.now() : await store.beginJob(account, settings.job);
  const freshness: Freshness = { maxAgeMs: settings.maxAgeMs, since };
  const spend: SpendSettings = { account, run: owner, prices: settings.prices };
  // Time and run identify a request (the store records it once): two answers in one millisecond are a millisecond apart.
  let lastAt = 0;
  const requestTime = () => (lastAt = Math.max(clock.now(), lastAt + 1));
  const pacer = store.pacer(settings.pacingAccount ?? account, owner);

  // Store writes go one after another in the background; the first failure stops the run.
  let writing: Promise<void> = Promise.resolve();
  let fail!: (error: unknown) => void;
  const failure = new Promise<never>((_, reject) => (fail = reject));
  failure.catch(() => undefined);
  let failed = false;
  const write = (work: () => Promise<void>) => {
    writing = writing
      .then(() => (failed ? undefined : work()))
      .catch((error: unknown) => {
        failed = true;
        fail(error);
      });
  };

  // The heartbeat that keeps this run's claims alive until it closes. On the machine's own timer,
  // not the run's clock: a lease is about the process being alive, and a test's clock that leaps
  // ahead would otherwise spin it.
  const heartbeat = setInterval(() => write(() => store.renewClaims(claimant, CLAIMS.leaseMs)), CLAIMS.renewalMs);
  heartbeat.unref();

  /** The list price of the billable sections a kept set answers instead of the service (204s are free). */
  const savingOf = (bodies: readonly unknown[], at: readonly number[]): Saving => {
    const saving = { sections: 0, usd: 0 };
    bodies.forEach((body, i) => {
      if ((body as { api_code?: unknown } | undefined)?.api_code !== 0) return;
      saving.sections += 1;
      saving.usd += settings.prices[members[at[i]!]!] ?? 0;
    });
    return saving;
  };

  /** Sections this run bought though another job had claimed them: lapsed claims, and live ones a wait outlasted. */
  const tookOver = { lapsed: 0, forced: 0 };

  const kept: KeptAnswers = {
    failure,
    async resolve(items) {
      const refs = items.map((item) => itemRefOf(target, item.item));
      const found = await store.find(account, refs, freshness);
      const lacking = found.map(lackingOf);
      const wanted = refs.flatMap((ref, i) => claimsOf(ref, lacking[i]));
      // Whether another job sends one of them now: then the item waits for that job's answer.
      const held = wanted.length > 0 ? await store.held(account, claimant, wanted) : [];
      let next = 0;
      return found.map((item, i): Resolution => {
        const keptAt = item.sections.flatMap((section, s) => (section === undefined ? [] : [s]));
        const bodies = keptAt.map((s) => item.sections[s]!.body);
        const saving = savingOf(bodies, keptAt);
        if (lacking[i]!.length === 0) return { kind: 'kept', chunk: joinChunk(item.frame!, members, bodies, undefined), saving };
        const purchase: Purchase = {
          kind: 'buy',
          sections: lacking[i]!,
          kept: Object.fromEntries(keptAt.map((s, k) => [members[s]!, bodies[k]])),
          saving,
        };
        const waits = held.slice(next, (next += lacking[i]!.length)).some(Boolean);
        return waits ? { kind: 'wait', purchase } : purchase;
      });
    },
    async claim(requests) {
      const claimed = requests.map(() => false);
      for (const force of [false, true]) {
        const asked = requests.flatMap((request, i) => (Boolean(request.force) === force ? [i] : []));
        const wanted = asked.map((i) => claimsOf(itemRefOf(target, requests[i]!.item.item), requests[i]!.sections));
        if (asked.length === 0) continue;
        const outcomes = await store.claim(account, claimant, wanted.flat(), freshness, CLAIMS.leaseMs, { force });
        let next = 0;
        const giveBack: SectionClaim[] = [];
        asked.forEach((i, k) => {
          const mine = outcomes.slice(next, (next += wanted[k]!.length));
          for (const outcome of mine) if (outcome === 'took over') tookOver[force ? 'forced' : 'lapsed'] += 1;
          claimed[i] = mine.every(takes);
          // Part of it is another's now, or kept meanwhile: what this run took goes back, and the item is looked up again.
          if (!claimed[i]) giveBack.push(...wanted[k]!.filter((_, c) => takes(mine[c]!)));
        });
        if (giveBack.length > 0) write(() => store.release(account, claimant, giveBack));
      }
      return claimed;
    },
    record(exchange) {
      const at = requestTime();
      // Only what this answer settles: an item it brought no answer for (a 429, a 5xx, a 400 being
      // narrowed down) is sent again, and keeps its claim until then (PROTOCOL.md, rule 5).
      const settles = exchange.sent.flatMap((item, i) =>
        exchange.answers?.[i] === undefined ? [] : claimsOf(itemRefOf(exchange.target, item.item)),
      );
      write(() =>
        store.record({
          request: requestRecordOf(spend, exchange, at),
          windows: exchange.windows,
          answers: keptAnswersOf(exchange),
          owner: claimant,
          settles,
        }),
      );
    },
    release(items) {
      const claims = items.flatMap(({ item, sections }) => claimsOf(itemRefOf(target, item.item), sections));
      write(() => store.release(account, claimant, claims));
    },
    flush: async () => {
      await writing;
      if (failed) await failure;
    },
  };

  return {
    kept,
    windows: () => store.loadWindows(settings.pacingAccount ?? account),
    pacer: () => pacer,
    monthToDateCost: () => store.monthToDateCost(account),
    finishJob: async () => {
      if (settings.job !== undefined) await store.finishJob(account, settings.job);
    },
    problems: () => {
      const problems = store.problems();
      return { ...problems, notes: [...problems.notes, ...tookOverNotes(tookOver)] };
    },
    async close(fromStore, savedUsd) {
      clearInterval(heartbeat);
      try {
        await writing;
        // Nothing more is bought: no other job waits on this one.
        await store.releaseAll(claimant);
        // This run asks for nothing more: its share of the windows goes to the others at once.
        await pacer.leave();
        if (fromStore > 0 || savedUsd > 0)
          await store.recordReuse({ at: clock.now(), run: owner, account, endpoint: endpointOf(target), rows: fromStore, saved: savedUsd });
      } finally {
        await store.close();
      }
    },
  };
}
