import { cpus, release, totalmem, type } from 'node:os';

/** The machine as it describes itself: what every figure here depends on. */
export function describeMachine() {
  const cores = cpus();
  const model = cores[0]?.model.trim().replace(/\s+/g, ' ') ?? 'unknown CPU';
  const memoryGiB = (totalmem() / 1024 ** 3).toFixed(1);
  return `${cores.length} cores (${model}), ${memoryGiB} GiB memory, ${type()} ${release()}, Node ${process.version}`;
}

/** When, to the minute, in UTC: figures from different runs can be told apart. */
export function timestamp(date = new Date()) {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
