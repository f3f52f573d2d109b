import { writeFile } from 'node:fs/promises';
import { DEFAULT_RETRY_POLICY } from '../client/retry-policy.js';
import { connect } from '../cli/connect.js';
import type { Io, Messages } from '../cli/io.js';
import type { QueryTarget } from '../cli/query-target.js';
import { fixedParams, type QueryOptions } from '../cli/run-query.js';
import { EXIT, PropdataError } from '../errors/index.js';
import { countRows, openInput } from '../input/open-input.js';
import { createPreparer } from '../input/prepare.js';
import { openOutput } from '../output/open-output.js';
import { SYSTEM_CLOCK } from '../throttle/clock.js';
import { DEFAULT_THROTTLE_POLICY, RateLimiter } from '../throttle/rate-limiter.js';
import { OrderedOutput } from './ordered-output.js';
import { startProgress } from './progress.js';
import { runBatch } from './run-batch.js';
import { RunStats } from './run-stats.js';
import { sendBatch } from './send-batch.js';
import { formatSummary, summarize, type RunSummary } from './summary.js';

export interface BatchOptions extends QueryOptions {
  input: string;
  output?: string;
  format?: 'csv' | 'json' | 'jsonl';
  inputFormat?: 'csv' | 'jsonl';
  map?: Record<string, string>;
  metaColumn?: string;
  batchSize: number;
  concurrency: number;
  rate: number;
  report?: string;
  quiet?: boolean;
}

/** The chunk members whose api_code decides a record's status. */
export function sectionKeys(target: QueryTarget): string[] {
  return target.sections.length > 0 ? target.sections.map((endpoint) => endpoint.name) : [target.path.replace(/^v\d\//, '')];
}

/** `--input`: stream the file through the service and write one record per row. */
export async function runBatchCommand(target: QueryTarget, options: BatchOptions, io: Io, messages: Messages): Promise<number> {
  const service = await connect(options, io, messages, options.concurrency);
  try {
    const input = await openInput({ path: options.input, format: options.inputFormat, stdin: io.stdin });
    const inputColumns = await input.columns;
    const metaColumn = options.metaColumn ?? inputColumns.find((column) => column.toLowerCase() === 'meta');
    const prepare = createPreparer({
      level: target.level,
      endpoints: target.paramEndpoints,
      fixedParams: fixedParams(target, options),
      map: options.map ?? {},
      ...(metaColumn ? { metaColumn } : {}),
    });
    const stats = new RunStats();
    if (options.input !== '-') void countRows(options.input, input.format).then((total) => (stats.totalRows = total), () => undefined);

    const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY, initialPerMinute: options.rate });
    const keys = sectionKeys(target);
    const writer = await openOutput({
      path: options.output,
      format: options.format,
      stdout: io.stdout,
      inputColumns,
      level: target.level,
      sections: keys,
      withMeta: metaColumn !== undefined,
    });
    const progress = await startProgress(io, stats, limiter, Boolean(options.quiet));
    const output = new OrderedOutput(writer, stats);
    let result;
    try {
      result = await runBatch(
        input.rows,
        prepare,
        (items) =>
          sendBatch(items, {
            client: service.client,
            limiter,
            target,
            sectionKeys: keys,
            retry: { ...DEFAULT_RETRY_POLICY, maxRetries: options.maxRetries },
            stats,
            clock: SYSTEM_CLOCK,
            onRetry: (reason) => messages.debug(`retrying a batch after: ${reason}`),
          }),
        output,
        stats,
        {
          batchSize: options.batchSize,
          concurrency: options.concurrency,
          maxHoldRows: Math.max(1_000, options.batchSize * options.concurrency * 4),
          ...(io.signal ? { signal: io.signal } : {}),
        },
      );
    } finally {
      progress.stop();
      await writer.close();
    }

    const fatal = result.fatal;
    const failures = stats.byStatus.invalid_input + stats.byStatus.error;
    const outcome: RunSummary['outcome'] = fatal !== undefined ? 'stopped' : result.interrupted ? 'interrupted' : failures > 0 ? 'completed with failures' : 'completed';
    const summary = summarize(stats, limiter, outcome, {
      ...(fatal !== undefined ? { stoppedBecause: messages.redact(fatal instanceof Error ? fatal.message : String(fatal)) } : {}),
      ...(outcome === 'stopped' || outcome === 'interrupted' ? { nextRow: output.nextRow } : {}),
    });
    if (options.report) await writeFile(options.report, `${JSON.stringify(summary, null, 2)}\n`);
    if (!options.quiet || outcome !== 'completed') messages.error(formatSummary(summary).trimEnd());

    if (fatal !== undefined) {
      if (fatal instanceof PropdataError) return fatal.exitCode;
      throw fatal;
    }
    if (result.interrupted) return EXIT.interrupted;
    return failures > 0 ? EXIT.someItemsFailed : EXIT.ok;
  } finally {
    await service.close();
  }
}
