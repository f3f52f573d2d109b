import { linkSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findEndpoint } from '../../../src/catalog/index.js';
import { singleEndpointTarget } from '../../../src/model/query-target.js';
import { itemRefOf } from '../../../src/model/section-refs.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { accountId, openStore } from '../../../src/store/index.js';
import { basic, gatewayFor, issueKeys } from '../../gateway/helpers.js';
import { startCli } from '../../helpers/cli-process.js';
import { envFor } from '../../helpers/sandbox-per-test.js';

/**
 * Where jobs meet (store/PROTOCOL.md), raced as users run them: real processes of the compiled bin,
 * each a machine of its own (its own home and config), sharing one store and one account on a
 * tight rate limit, over overlapping inputs in different orders, some killed with kill -9. The
 * sandbox counts what it charged twice (`chargedAgain`): nothing may be, beyond what was in flight
 * at a kill; every output is whole; every run ends, and within a bound. One suite, run against each
 * driver (as the store contract is).
 */

/** A store every job of a test names: a file on this machine, or a database. */
export interface RaceDriver {
  /** A new, empty store for one test: what `--store` is given. */
  fresh(): Promise<string>;
}

/** No run of these tests takes more than this: one that does is a wait that never ends. */
const RUN_BOUND_MS = 60_000;
const BATCH = 20;
const CONCURRENCY = 4;
/**
 * Jobs started "at once" start some hundred milliseconds apart on a busy machine; without an age
 * limit, a job reuses only what was bought since its own job began (docs/nightly.md), so an answer another
 * bought in those milliseconds would rightly be bought again. An hour makes every answer of the
 * test count, whoever bought it first.
 */
const MAX_AGE = ['--max-age', '1h'];

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  ms: number;
}

interface Job {
  finished: Promise<Finished>;
  kill(): void;
}

/** A deterministic shuffle (a small LCG): the same order every run of the suite. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const home = (n: number) => `${n} Harbor Rd`;

export function raceContract(name: string, driver: RaceDriver): void {
  describe(`jobs racing on one store: ${name}`, () => {
    let sandbox: RunningSandbox | undefined;
    const dir = mkdtempSync(join(tmpdir(), 'propdata-race-'));
    let files = 0;

    afterEach(async () => {
      await sandbox?.close();
      sandbox = undefined;
    });

    /** The service: `perSecond` components a second, a little latency, as the real one has. */
    async function service(perSecond: number): Promise<Record<string, string>> {
      sandbox = await startSandbox({
        rateLimits: [{ limit: perSecond, periodSeconds: 1 }],
        credit: 1_000_000,
        strict: true,
        latencyMs: [20, 60],
      });
      return envFor(sandbox);
    }

    /** An input file of these homes, in this order. */
    function input(homes: readonly number[]): string {
      const path = join(dir, `in-${(files += 1)}.csv`);
      writeFileSync(path, `address,zipcode\n${homes.map((n) => `${home(n)},21201`).join('\n')}\n`);
      return path;
    }

    /** A machine of its own: its own home and config; nothing shared with another but the store and the service. */
    function machine(): Record<string, string> {
      const at = mkdtempSync(join(dir, 'host-'));
      return { PROPDATA_HOME: at, PROPDATA_CONFIG_DIR: join(at, 'config') };
    }

    function job(env: Record<string, string>, host: Record<string, string>, args: readonly string[]): Job {
      const started = Date.now();
      const cli = startCli(['property', 'value', ...args, '-q'], { env: { ...env, ...host }, stdio: ['ignore', 'ignore', 'pipe'] });
      const bound = setTimeout(() => cli.child.kill('SIGKILL'), RUN_BOUND_MS);
      const finished = cli.exited.then(({ code, signal }) => {
        clearTimeout(bound);
        return { code, signal, stderr: cli.stderr(), ms: Date.now() - started };
      });
      return { finished, kill: () => cli.child.kill('SIGKILL') };
    }

    /** The records an output holds, by address: whole means one per input row, each `ok`. */
    function recordsOf(output: string): Map<string, string> {
      const [header, ...lines] = readFileSync(output, 'utf8').trimEnd().split('\n');
      const status = header!.split(',').indexOf('_status');
      return new Map(lines.map((line) => [line.split(',')[0]!, line.split(',')[status]!]));
    }

    /** Whole: one record per input row, each answered (`ok`, or `no_content` where the service has nothing). */
    function expectWhole(output: string, homes: readonly number[]): void {
      const records = recordsOf(output);
      expect(records.size).toBe(homes.length);
      const statuses = [...new Set(records.values())].sort();
      expect(statuses.filter((status) => !['ok', 'no_content'].includes(status))).toEqual([]);
    }

    const expectEnded = (finished: Finished) => {
      expect({ code: finished.code, signal: finished.signal, stderr: finished.stderr }).toMatchObject({ code: 0, signal: null });
      expect(finished.ms).toBeLessThan(RUN_BOUND_MS);
    };

    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

    it('two machines, the same file at once: each item bought once, both outputs whole and alike, both end', async () => {
      const env = await service(100);
      const store = await driver.fresh();
      const homes = range(1, 400);
      const file = input(homes);
      const outputs = [join(dir, 'same-a.csv'), join(dir, 'same-b.csv')];
      const runs = outputs.map((output) =>
        job(env, machine(), ['-i', file, '-o', output, '--store', store, '--batch-size', String(BATCH), ...MAX_AGE]),
      );
      for (const finished of await Promise.all(runs.map((run) => run.finished))) expectEnded(finished);
      expect(sandbox!.usage()).toMatchObject({ components: 400, chargedAgain: { sections: 0 } });
      for (const output of outputs) expectWhole(output, homes);
      expect(readFileSync(outputs[1]!, 'utf8')).toBe(readFileSync(outputs[0]!, 'utf8'));
    });

    it('two machines, the same file, the second started 2 s after the first, without --max-age: each item bought once, both end', async () => {
      const env = await service(100);
      const store = await driver.fresh();
      const homes = range(1, 400);
      const file = input(homes);
      const outputs = [join(dir, 'apart-a.csv'), join(dir, 'apart-b.csv')];
      const run = (output: string) => job(env, machine(), ['-i', file, '-o', output, '--store', store, '--batch-size', String(BATCH)]);
      const first = run(outputs[0]!);
      // Some of the file is bought by then: the second job reuses it, as what the first buys from now on (PROTOCOL.md, rule 1).
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const second = run(outputs[1]!);
      for (const finished of await Promise.all([first.finished, second.finished])) expectEnded(finished);
      expect(sandbox!.usage()).toMatchObject({ components: 400, chargedAgain: { sections: 0 } });
      for (const output of outputs) expectWhole(output, homes);
    });

    for (const [alias, link, resume] of [
      ['a hard link', linkSync, ['--resume']],
      ['a symlink', symlinkSync, []],
    ] as const) {
      it(`a job killed with kill -9 and continued through ${alias} to its output${resume.length > 0 ? ' with --resume' : ''}: nothing bought again beyond what was in flight, no wait for the killed run's claims`, async () => {
        const env = await service(100);
        const store = await driver.fresh();
        const homes = range(1, 400);
        const file = input(homes);
        const output = join(dir, `kept-${(files += 1)}.csv`);
        const host = machine();
        const run = (out: string, extra: readonly string[] = []) =>
          job(env, host, ['-i', file, '-o', out, '--store', store, '--batch-size', String(BATCH), ...extra]);
        const killed = run(output);
        while (sandbox!.usage().components < 150) await new Promise((resolve) => setTimeout(resolve, 5));
        killed.kill();
        if ((await killed.finished).code === 0) return;
        const other = join(dir, `alias-${files}.csv`);
        link(output, other);
        const continued = await run(other, resume).finished;
        expectEnded(continued);
        expectWhole(other, homes);
        // A wait for the killed run's claims would be a lease (60 s).
        expect(continued.ms).toBeLessThan(30_000);
        expect(sandbox!.usage().chargedAgain.sections).toBeLessThanOrEqual(CONCURRENCY * BATCH);
      });
    }

    it('two nights on two machines, the second sharing half the first’s rows, both at once with --max-age 30d --resume: bought once, both end', async () => {
      const env = await service(100);
      const store = await driver.fresh();
      const hosts = [machine(), machine()];
      const night = async (homes: readonly number[], night: number) => {
        const file = input(homes);
        const runs = hosts.map((host, h) =>
          job(env, host, ['-i', file, '-o', join(dir, `night${night}-${h}.csv`), '--store', store, '--max-age', '30d', '--resume']),
        );
        for (const finished of await Promise.all(runs.map((run) => run.finished))) expectEnded(finished);
        for (const h of [0, 1]) expectWhole(join(dir, `night${night}-${h}.csv`), homes);
      };
      await night(range(1, 300), 1);
      await night(shuffled(range(151, 450), 7), 2);
      expect(sandbox!.usage()).toMatchObject({ components: 450, chargedAgain: { sections: 0 } });
    });

    it('six jobs over overlapping inputs in different orders: each item bought once, every output whole, every run ends', async () => {
      const env = await service(150);
      const store = await driver.fresh();
      const pool = range(1, 300);
      const inputs = Array.from({ length: 6 }, (_, j) => shuffled(pool, j + 1).slice(0, 200));
      const runs = inputs.map((homes, j) =>
        job(env, machine(), [
          '-i',
          input(homes),
          '-o',
          join(dir, `six-${j}.csv`),
          '--store',
          store,
          '--batch-size',
          String(BATCH),
          ...MAX_AGE,
        ]),
      );
      for (const finished of await Promise.all(runs.map((run) => run.finished))) expectEnded(finished);
      inputs.forEach((homes, j) => expectWhole(join(dir, `six-${j}.csv`), homes));
      const wanted = new Set(inputs.flat()).size;
      expect(sandbox!.usage()).toMatchObject({ components: wanted, chargedAgain: { sections: 0 } });
    });

    it('four jobs, two killed with kill -9 at random moments and run again: only what was in flight at a kill is bought twice', async () => {
      const env = await service(100);
      const store = await driver.fresh();
      const pool = range(1, 400);
      const inputs = Array.from({ length: 4 }, (_, j) => shuffled(pool, 11 + j));
      const hosts = inputs.map(() => machine());
      const args = (j: number) => ['-i', input(inputs[j]!), '-o', join(dir, `killed-${j}.csv`), '--store', store, ...MAX_AGE];
      const files = inputs.map((_, j) => args(j));
      const runs = files.map((argv, j) => job(env, hosts[j]!, [...argv, '--batch-size', String(BATCH)]));
      // Killed once the account has been charged a random part of the pool: mid-request, mid-claim, anywhere.
      const killAt = [80 + Math.floor(Math.random() * 150), 150 + Math.floor(Math.random() * 150)];
      const killed = await Promise.all(
        killAt.map(async (charged, k) => {
          while (sandbox!.usage().components < charged) await new Promise((resolve) => setTimeout(resolve, 5));
          runs[k]!.kill();
          const finished = await runs[k]!.finished;
          if (finished.code === 0) return finished;
          expect(finished.signal).toBe('SIGKILL');
          // The same command again: it continues the killed run's job, and takes its claims over at once.
          return job(env, hosts[k]!, [...files[k]!, '--batch-size', String(BATCH)]).finished;
        }),
      );
      for (const finished of [...killed, ...(await Promise.all(runs.slice(2).map((run) => run.finished)))]) expectEnded(finished);
      inputs.forEach((homes, j) => expectWhole(join(dir, `killed-${j}.csv`), homes));
      const usage = sandbox!.usage();
      // A killed run's requests in flight were charged and never kept: at most its senders' batches each
      // (204 sections are sent again alike, and not charged).
      const inFlight = killAt.length * CONCURRENCY * BATCH;
      expect(usage.chargedAgain.sections).toBeLessThanOrEqual(inFlight);
      expect(usage.components).toBeGreaterThanOrEqual(pool.length);
      expect(usage.components).toBeLessThanOrEqual(pool.length + inFlight);
    });

    it(
      'a gateway’s clients and CLI jobs over the same items at once: each item bought once, every claim gone with its answer, every run ends',
      { timeout: 60_000 },
      async () => {
        const env = await service(100);
        const store = await driver.fresh();
        const { team } = await issueKeys(store, [{ name: 'team' }]);
        const gateway = await gatewayFor(sandbox!, store, { maxAgeMs: 3_600_000 });
        const pool = range(1, 300);
        const ask = (homes: readonly number[]) =>
          fetch(`${gateway.url}/v2/property/value`, {
            method: 'POST',
            headers: { authorization: basic('team', team!), 'content-type': 'application/json' },
            body: JSON.stringify(homes.map((n) => ({ address: home(n), zipcode: '21201' }))),
          });
        try {
          const jobs = [1, 2].map((j) =>
            job(env, machine(), ['-i', input(shuffled(pool, 20 + j)), '-o', join(dir, `mixed-${j}.csv`), '--store', store, ...MAX_AGE]),
          );
          // Four clients of the gateway, each asking for the pool in an order of its own, a batch a request.
          const clients = [1, 2, 3, 4].map(async (c) => {
            const order = shuffled(pool, 30 + c);
            const answered: number[] = [];
            for (let at = 0; at < order.length; at += BATCH) {
              const response = await ask(order.slice(at, at + BATCH));
              expect(response.status).toBe(200);
              const chunks = (await response.json()) as { 'property/value': { api_code: number } }[];
              answered.push(...chunks.map((chunk) => chunk['property/value'].api_code));
            }
            return answered;
          });
          for (const finished of await Promise.all(jobs.map((run) => run.finished))) expectEnded(finished);
          for (const answered of await Promise.all(clients)) expect(answered.filter((code) => code !== 0 && code !== 204)).toEqual([]);
          [1, 2].forEach((j) => expectWhole(join(dir, `mixed-${j}.csv`), pool));
          expect(sandbox!.usage()).toMatchObject({ components: pool.length, chargedAgain: { sections: 0 } });
          // The gateway is still running: what its calls claimed went with their answers, not with the gateway.
          const opened = await openStore(store);
          try {
            const value = singleEndpointTarget(findEndpoint('property/value')!);
            const claims = pool.flatMap((n) => {
              const ref = itemRefOf(value, { address: home(n), zipcode: '21201' });
              return ref.sections.map((section) => ({ item: ref.item, ...section }));
            });
            const account = accountId(new URL(sandbox!.url), sandbox!.key);
            expect((await opened.held(account, 'nobody', claims)).filter(Boolean)).toEqual([]);
          } finally {
            await opened.close();
          }
        } finally {
          await gateway.close(0);
        }
      },
    );
  });
}
