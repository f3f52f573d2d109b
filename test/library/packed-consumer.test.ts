import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/consumer/', import.meta.url));
/** The consumer's own tools, as its project would have them installed. */
const CONSUMER_TOOLS = ['typescript', '@types/node'];

/** The consumer project's settings: what a user of the package compiles with. skipLibCheck is off, so the package's own .d.ts files are checked too. */
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    lib: ['ES2023'],
    types: ['node'],
    skipLibCheck: false,
    outDir: '.',
  },
  files: ['consumer.ts'],
};

interface Packed {
  /** The tarball's entries, without the leading `package/`. */
  entries: string[];
  manifest: {
    dependencies: Record<string, string>;
    exports: Record<string, string | Record<string, string>>;
    scripts: Record<string, string>;
  };
}

/** Runs `node args` and returns its exit code and output, failing or not. */
async function node(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * `npm pack` as a release runs it, prepack and postpack included (they rebuild dist/ and take
 * `prepare` out of the packed package.json), but in a copy of what the build and the package
 * need: the repository's dist/, which other test files run, and its package.json stay as they
 * are while this runs.
 */
async function pack(work: string): Promise<string> {
  const stage = join(work, 'stage');
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const shipped = manifest.files.filter((entry) => !entry.startsWith('!') && entry !== 'dist');
  for (const entry of ['package.json', 'tsconfig.json', 'src', '.ci', ...shipped]) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(stage, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'), 'dir');
  const destination = join(work, 'tarball');
  mkdirSync(destination);
  await run('npm', ['pack', '--pack-destination', destination, '--offline', '--loglevel=warn'], {
    cwd: stage,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  });
  const [tarball, ...others] = readdirSync(destination);
  expect(others).toEqual([]);
  return join(destination, tarball!);
}

/**
 * A project that has installed the tarball without the registry: the package unpacked into its
 * node_modules, and beside it only the package's declared dependencies (linked to the
 * repository's copies, whose own dependencies resolve from there) and the consumer's own tools.
 * A file of dist/ that imports anything else fails here as it would for a user.
 */
async function installConsumer(tarball: string, consumer: string): Promise<Packed> {
  const modules = join(consumer, 'node_modules');
  mkdirSync(join(modules, 'propdata'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', join(modules, 'propdata'), '--strip-components=1']);
  const { stdout } = await run('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 });
  const entries = stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''));
  const manifest = JSON.parse(readFileSync(join(modules, 'propdata', 'package.json'), 'utf8')) as Packed['manifest'];
  for (const name of [...Object.keys(manifest.dependencies), ...CONSUMER_TOOLS]) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  }
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module' })}\n`);
  writeFileSync(join(consumer, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  writeFileSync(
    join(consumer, 'tsconfig.bad.json'),
    `${JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true }, files: ['bad.ts'] })}\n`,
  );
  cpSync(join(FIXTURES, 'consumer.ts.txt'), join(consumer, 'consumer.ts'));
  cpSync(join(FIXTURES, 'bad.ts.txt'), join(consumer, 'bad.ts'));
  cpSync(join(FIXTURES, 'consumer.cjs.txt'), join(consumer, 'consumer.cjs'));
  return { entries, manifest };
}

/** The consumer's tsc on one of its configurations. */
const tsc = (consumer: string, config: string) =>
  node([join(consumer, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(consumer, config), '--pretty', 'false'], consumer);

describe('the packed package in a project of its own (npm pack, then tsc --strict and node)', () => {
  let work: string;
  let consumer: string;
  let packed: Packed;
  let manifestBefore: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'propdata-packed-'));
    consumer = join(work, 'consumer');
    manifestBefore = readFileSync(join(ROOT, 'package.json'), 'utf8');
    packed = await installConsumer(await pack(work), consumer);
  }, 120_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships dist/ with its declarations, without sources or source maps, and exports what is there', () => {
    const { entries, manifest } = packed;
    for (const file of [
      'dist/library/index.js',
      'dist/library/index.d.ts',
      'dist/library/xlsx.js',
      'dist/library/xlsx.d.ts',
      'bin/propdata.js',
      'docs/nightly.md',
      'docs/reference.md',
    ]) {
      expect(entries).toContain(file);
    }
    // Every module of the library has its declarations.
    const libraryModules = entries.filter((entry) => /^dist\/library\/[^/]+\.js$/.test(entry));
    for (const module of libraryModules) expect(entries).toContain(module.replace(/\.js$/, '.d.ts'));
    expect(entries.filter((entry) => entry.endsWith('.map'))).toEqual([]);
    expect(entries.filter((entry) => /^(src|test|\.ci)\//.test(entry) || entry.endsWith('.ts.txt'))).toEqual([]);
    // Each export's targets are in the tarball.
    for (const target of Object.values(manifest.exports).flatMap((value) => (typeof value === 'string' ? [value] : Object.values(value)))) {
      expect(entries).toContain(target.replace(/^\.\//, ''));
    }
    // prepack's edit: an installed package is built, so it has no `prepare`; the repository's own package.json is untouched.
    expect(manifest.scripts).not.toHaveProperty('prepare');
    expect(readFileSync(join(ROOT, 'package.json'), 'utf8')).toBe(manifestBefore);
  });

  it("compiles a program that imports only 'propdata' and 'propdata/xlsx', under --strict and with the package's .d.ts checked", async () => {
    const compiled = await tsc(consumer, 'tsconfig.json');
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
    expect(existsSync(join(consumer, 'consumer.js'))).toBe(true);
  }, 60_000);

  it('refuses each mistyped line of bad.ts, and nothing else in it', async () => {
    const source = readFileSync(join(consumer, 'bad.ts'), 'utf8').split('\n');
    const expected = source.flatMap((line, index) => (line.includes('// error expected') ? [index + 1] : []));
    expect(expected.length).toBeGreaterThanOrEqual(5);
    const checked = await tsc(consumer, 'tsconfig.bad.json');
    expect(checked.code).not.toBe(0);
    const errors = checked.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
    const lines = errors.map((line) => {
      const match = /^bad\.ts\((\d+),\d+\): error TS\d+/.exec(line);
      expect(match, `an error outside bad.ts: ${line}`).not.toBeNull();
      return Number(match![1]);
    });
    expect(
      [...new Set(lines)].sort((a, b) => a - b),
      checked.stdout,
    ).toEqual(expected);
  }, 60_000);

  it('runs it: one item, 20,000 from an async generator in order, mget, a break that stops sending, a budget stop, a workbook, a 401 and a 402, per-call options', async () => {
    expect(existsSync(join(consumer, 'consumer.js')), 'compiled by the test before').toBe(true);
    const ran = await node(['consumer.js'], consumer);
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout.trim().split('\n').pop()!);

    expect(result.one.priceMean).toBeGreaterThan(0);
    expect(result.one.zipcode).toBe('90274');

    // One record per item, rows 1..20,000 in input order (the consumer compares each row and its address).
    expect(result.batch).toMatchObject({ records: 20_000, inOrder: true, rowsRead: 20_000, outcome: 'completed' });
    expect((result.batch.statuses.ok ?? 0) + (result.batch.statuses.no_content ?? 0)).toBe(20_000);
    expect(result.batch.priced).toBe(result.batch.statuses.ok);

    expect(result.mget.one.priceMean).toBeGreaterThan(0);
    expect(result.mget.one.rentMean).toBeGreaterThan(0);
    expect(result.mget.rows).toEqual([1, 2, 3, 4, 5]);
    expect(result.mget.components).toBe(10);

    // After the break only requests already in flight were answered, all before the loop's exit;
    // 500 ms later nothing more had come back, and every request sent was one of those heard.
    const { stop } = result;
    expect(result.concurrency).toBe(4);
    expect(stop.taken).toBe(3);
    expect(stop.atExit - stop.atBreak).toBeLessThanOrEqual(result.concurrency);
    expect(stop.afterExit).toBe(stop.atExit);
    expect(stop.requests).toBe(stop.atExit);
    expect(stop.requests).toBeLessThan(100_000 / 100);
    expect(stop.outcome).toBe('interrupted');

    expect(result.budgetStop).toBe('BudgetReachedError');
    expect(result.workbookRows).toBeGreaterThan(0);

    // A real 401 and 402 from the sandbox: exported classes, one base, the answer's status and
    // headers, no request id (the sandbox sends none), and no exit code (the CLI's alone).
    expect(result.errors.auth).toEqual({
      name: 'AuthError',
      isAuthError: true,
      isPropdataError: true,
      code: 'E_AUTH',
      status: 401,
      rateLimitHeader: '100000',
      requestId: null,
      exitCode: false,
    });
    expect(result.errors.credit).toMatchObject({
      name: 'CreditExhaustedError',
      isCreditExhaustedError: true,
      status: 402,
      exitCode: false,
    });

    // Per-call options took effect: a deadline of 100 ms and one retry (two requests) against a
    // service that never answers, well before the client's 60 s; a longest wait of 1 s refused a
    // reset an hour off at once.
    expect(result.perCall.timeout).toMatchObject({ thrown: 'ItemFailedError', requests: 2 });
    expect(result.perCall.timeout.message).toMatch(/timed out after 0\.1 s/);
    expect(result.perCall.timeout.ms).toBeLessThan(10_000);
    expect(result.perCall.maxWait).toMatchObject({ thrown: 'QuotaWaitError', requests: 1 });
    expect(result.perCall.maxWait.message).toMatch(/later than maxWait \(1 s\)/);
  }, 60_000);

  it('prints a guide from the installed package: propdata help nightly', async () => {
    const ran = await node([join(consumer, 'node_modules', 'propdata', 'bin', 'propdata.js'), 'help', 'nightly'], consumer);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^# Nightly jobs\n/);
  }, 60_000);

  it("loads with require('propdata') on this Node (>= 20.19: require of ES modules), as the library guide says", async () => {
    const ran = await node(['consumer.cjs'], consumer);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout.trim())).toEqual({ apiCode: 0, refused: { auth: true, base: true, status: 401 }, xlsx: 'function' });
  }, 60_000);
});
