import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { BIN } from '../helpers/cli-process.js';
import { cutWhenRecorded as cutWhenRecordedIn, databasePerFile, postgresPassword } from '../helpers/postgres.js';
import { runMain, type MainResult } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/**
 * Jobs on several machines sharing one PostgreSQL store, as the CLI runs them: each "machine" is a
 * PROPDATA_HOME of its own (and its own connections), the service is the sandbox, the database the
 * test run's real one. The sandbox counts what it charged twice (`chargedAgain`).
 */
const sandbox = sandboxPerTest();
const database = databasePerFile();

/** A machine: its own home (and config), nothing shared with another but the database. */
function machine() {
  const home = mkdtempSync(join(tmpdir(), 'propdata-host-'));
  return { PROPDATA_HOME: home, PROPDATA_CONFIG_DIR: join(home, 'config') };
}

function workspace(rows: number) {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-pg-runs-'));
  const input = join(dir, 'homes.csv');
  writeFileSync(input, `address,zipcode\n${Array.from({ length: rows }, (_, i) => `${i + 1} Harbor Rd,21201`).join('\n')}\n`);
  return { input, at: (name: string) => join(dir, name) };
}

/** A database URL on the test server, with a schema of the test's own. */
function storeUrl(schema: string): string {
  const url = new URL(database.url);
  url.searchParams.set('schema', schema);
  return url.toString();
}

/**
 * A sandbox's latency that answers nothing until two runs are on the store: two jobs started at
 * once overlap, as two hosts' nightly scripts do, however slowly a loaded machine starts them (one
 * begun after the other ended would rightly buy again: PROTOCOL.md, rule 1).
 */
function onceBothRun(schema: string): (ms: number) => Promise<void> {
  let both: Promise<void> | undefined;
  return async (ms) => {
    await (both ??= runsOnStore(schema, 2));
    await delay(ms);
  };
}

/** Resolves once two runs are registered in the schema's runs table (PROTOCOL.md, rule 1). */
async function runsOnStore(schema: string, count: number): Promise<void> {
  for (;;) {
    const rows = await database.admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.runs`).then(
      (result) => Number(result.rows[0]!.n),
      () => 0, // not created yet
    );
    if (rows >= count) return;
    await delay(20);
  }
}

const printed = (...results: MainResult[]) => results.map((result) => result.stdout + result.stderr).join('\n');

describe('one store on PostgreSQL, jobs on several machines', () => {
  it('what one machine bought another reuses; usage and store info see every machine; the password shows nowhere', async () => {
    const env = await sandbox.start();
    const store = storeUrl('nightly');
    const { input, at } = workspace(30);
    const [hostA, hostB] = [machine(), machine()];
    const first = await runMain(['property', 'value', '-i', input, '-o', at('a.csv'), '--store', store, '--max-age', '30d', '-q'], {
      env: { ...env, ...hostA },
    });
    expect(first.code).toBe(0);
    expect(sandbox.current.usage().components).toBe(30);

    // Host B names the store by PROPDATA_STORE: nothing is bought again.
    const second = await runMain(['property', 'value', '-i', input, '-o', at('b.csv'), '--max-age', '30d', '-q'], {
      env: { ...env, ...hostB, PROPDATA_STORE: store },
    });
    expect(second.code).toBe(0);
    expect(sandbox.current.usage()).toMatchObject({ components: 30, chargedAgain: { sections: 0 } });
    expect(readFileSync(at('b.csv'), 'utf8')).toBe(readFileSync(at('a.csv'), 'utf8'));

    // Host B stores the URL in its config, without its password (which the config refuses to keep),
    // given to node-postgres in PGPASSWORD: usage and store info find the store there.
    const location = store.replace(`:${postgresPassword()}@`, '@');
    const set = await runMain(['config', 'set', 'store', location], { env: hostB });
    expect(set.code).toBe(0);
    vi.stubEnv('PGPASSWORD', postgresPassword());
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const usage = await runMain(['usage', '--json', '--all-accounts'], { env: { ...env, ...hostB } });
    expect(JSON.parse(usage.stdout).total).toMatchObject({ components: 30, fromStore: 30 });
    const info = await runMain(['store', 'info'], { env: hostB });
    expect(info.stdout).toContain(`store     ${location}`);
    expect(info.stdout).toMatch(/v2\/property\/value +30/);
    const list = await runMain(['config', 'list'], { env: hostB });
    expect(list.stdout).toContain(`store=${location}`);

    expect(printed(first, second, set, usage, info, list)).not.toContain(postgresPassword());
    // Nor is it kept: the runs' names (their command lines) are in the spend log.
    const runs = await database.admin.query<{ run: string }>('SELECT run FROM nightly.requests UNION SELECT run FROM nightly.reused');
    expect(runs.rows.map((row) => row.run).join('\n')).toMatch(/--store 'postgres:\/\/propdata@127\.0\.0\.1:\d+\//);
    expect(JSON.stringify(runs.rows)).not.toContain(postgresPassword());
  });

  it('two machines running the same items at once buy each of them once (claims across machines)', async () => {
    const env = await sandbox.start({ latencyMs: [40, 40], sleep: onceBothRun('together') });
    const store = storeUrl('together');
    const { input, at } = workspace(60);
    const run = (host: Record<string, string>, output: string) =>
      runMain(['property', 'value', '-i', input, '-o', at(output), '--store', store, '--batch-size', '10', '-q'], {
        env: { ...env, ...host },
      });
    const results = await Promise.all([run(machine(), 'a.csv'), run(machine(), 'b.csv')]);
    expect(results.map((result) => result.code)).toEqual([0, 0]);
    expect(sandbox.current.usage()).toMatchObject({ components: 60, chargedAgain: { sections: 0, usd: 0 } });
    expect(readFileSync(at('b.csv'), 'utf8')).toBe(readFileSync(at('a.csv'), 'utf8'));
  });

  // Each machine a host name and an output folder of its own at one path (mount and UTS namespaces:
  // root, as CI runs), so that the two write the same path on two disks, as two hosts running one
  // nightly script do.
  const namespaces = spawnSync('unshare', ['-m', '-u', 'true']).status === 0;
  it.skipIf(!namespaces)('two machines writing the same output path, each on its own disk, buy each item once', async () => {
    const env = await sandbox.start({ latencyMs: [40, 40], sleep: onceBothRun('same_path') });
    const store = storeUrl('same_path');
    const { input, at } = workspace(60);
    const out = at('out');
    mkdirSync(out);
    const script =
      'hostname "$HOST" && mount -t tmpfs none "$OUT" && exec "$NODE" "$BIN" property value -i "$IN" -o "$OUT/values.csv" --store "$STORE" --batch-size 10 -q';
    const run = (host: string) =>
      new Promise<string>((resolve) => {
        const child = spawn('unshare', ['-m', '-u', 'sh', '-c', script], {
          env: {
            ...process.env,
            ...env,
            ...machine(),
            NO_COLOR: '1',
            HOST: host,
            OUT: out,
            NODE: process.execPath,
            BIN,
            IN: input,
            STORE: store,
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (part: Buffer) => (stderr += part.toString()));
        child.on('close', (code) => resolve(`${String(code)} ${stderr}`));
      });
    const ends = await Promise.all([run('host-a'), run('host-b')]);
    expect(
      ends.map((end) => end.split(' ')[0]),
      ends.join('\n'),
    ).toEqual(['0', '0']);
    expect(sandbox.current.usage()).toMatchObject({ components: 60, chargedAgain: { sections: 0, usd: 0 } });
  });

  it.each([
    ['nothing listens', () => 'postgres://propdata@127.0.0.1:9/propdata', /refused the connection/],
    ['a wrong password', () => database.url.replace(postgresPassword(), 'not-the-password'), /refused the login/],
    ['no such database', () => database.url.replace(/\/[^/?]+(\?|$)/, '/no_such_database$1'), /does not exist/],
    [
      'a read-only database',
      () => `${storeUrl('read_only')}&options=${encodeURIComponent('-c default_transaction_read_only=on')}`,
      /the database is read-only \(.*\): a standby \(a read replica\), or default_transaction_read_only is on; point the URL at the primary/,
    ],
  ])(
    'a database that cannot be used (%s) stops a batch and a one-off before anything is sent: one line, exit 1',
    async (_, url, reason) => {
      const env = await sandbox.start();
      const { input, at } = workspace(5);
      const batch = await runMain(['property', 'value', '-i', input, '-o', at('out.csv'), '--store', url()], {
        env: { ...env, ...machine() },
      });
      const oneOff = await runMain(['property', 'value', '--address', '1 Harbor Rd', '--zipcode', '21201', '--store', url()], {
        env: { ...env, ...machine() },
      });
      for (const result of [batch, oneOff]) {
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(reason);
        // After the warning of a password in --store, where the URL has one.
        const refusal = result.stderr.replace(/^propdata: warning: the password in --store .*\n/, '');
        expect(refusal).toMatch(/^propdata: cannot use the store postgres:\/\/propdata@127\.0\.0\.1:\d+\/\S+: .*--no-store\n$/);
        expect(result.stderr).not.toContain(postgresPassword());
      }
      expect(sandbox.current.usage().requests).toBe(0);
    },
  );

  const cutWhenRecorded = (schema: string) => cutWhenRecordedIn(database, schema);

  it('a database lost for a few seconds mid-run: sending pauses, the run goes on once it is back, exit 0, nothing bought twice', async () => {
    const env = { ...(await sandbox.start({ latencyMs: [20, 20] })), ...machine() };
    const store = storeUrl('outage');
    const { input, at } = workspace(200);
    const database = await cutWhenRecorded('outage');
    try {
      const back = database.cut.then(() => new Promise((resolve) => setTimeout(resolve, 3_000))).then(() => database.restore());
      const run = await runMain(
        ['property', 'value', '-i', input, '-o', at('out.csv'), '--store', store, '--batch-size', '10', '--concurrency', '1'],
        {
          env,
        },
      );
      await back;
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(
        /the store stopped answering: .*; sending paused until it answers again, for 5 min at most \(--store-wait\)/,
      );
      expect(run.stderr).toMatch(/the store answers again after \d+ s; sending goes on/);
      expect(readFileSync(at('out.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(201);
      expect(sandbox.current.usage()).toMatchObject({ components: 200, chargedAgain: { sections: 0 } });
    } finally {
      await database.restore();
      await database.end();
    }
  });

  it('a database lost longer than --store-wait stops the run: what was answered is kept on this machine, and a rerun without --resume buys nothing twice', async () => {
    const env = { ...(await sandbox.start({ latencyMs: [20, 20] })), ...machine() };
    const store = storeUrl('midrun');
    const { input, at } = workspace(200);
    const args = ['property', 'value', '-i', input, '-o', at('out.csv'), '--store', store, '--batch-size', '10', '--concurrency', '1'];
    const database = await cutWhenRecorded('midrun');
    try {
      const stopped = await runMain([...args, '--store-wait', '2s'], { env });
      await database.cut;
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toMatch(/cannot use the store postgres:\/\/propdata@127\.0\.0\.1:\d+\/\S+: .*--no-store/);
      expect(stopped.stderr).toContain('--store-wait');
      const written = readFileSync(at('out.csv'), 'utf8').trimEnd().split('\n').length - 1;
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(200);

      await database.restore();
      const again = await runMain([...args, '-q'], { env });
      expect(again.code).toBe(0);
      expect(readFileSync(at('out.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(201);
      expect(sandbox.current.usage()).toMatchObject({ components: 200, chargedAgain: { sections: 0 } });
    } finally {
      await database.restore();
      await database.end();
    }
  });
});
