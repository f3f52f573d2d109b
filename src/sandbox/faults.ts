import { randomFor, type Random } from './generate/random.js';
import type { ResolvedOptions } from './options.js';

export type Fault = 'reset' | 'server-error' | 'spurious-429';

const SERVER_ERROR_STATUSES = [500, 502, 503] as const;

/**
 * Injected failures, drawn from a generator seeded by the `seed` option: the same seed gives the
 * same sequence of faults, so tests that provoke them are reproducible. The three rates are shares
 * of all requests and add up (0.1 + 0.1 = a fifth of requests fault).
 */
export class Faults {
  readonly #random: Random;

  readonly #options: Pick<ResolvedOptions, 'failRate' | 'resetRate' | 'spurious429Rate' | 'latencyMs' | 'seed'>;

  constructor(options: Pick<ResolvedOptions, 'failRate' | 'resetRate' | 'spurious429Rate' | 'latencyMs' | 'seed'>) {
    this.#options = options;
    this.#random = randomFor('faults', options.seed);
  }

  draw(): Fault | undefined {
    const { resetRate, failRate, spurious429Rate } = this.#options;
    if (resetRate + failRate + spurious429Rate === 0) return undefined;
    const draw = this.#random.next();
    if (draw < resetRate) return 'reset';
    if (draw < resetRate + failRate) return 'server-error';
    if (draw < resetRate + failRate + spurious429Rate) return 'spurious-429';
    return undefined;
  }

  serverErrorStatus(): number {
    return this.#random.pick(SERVER_ERROR_STATUSES);
  }

  latencyMs(): number {
    const [min, max] = this.#options.latencyMs;
    return max <= min ? min : min + this.#random.next() * (max - min);
  }
}

/** A gateway-style error page: real outages answer HTML, not JSON, and clients must cope. */
export function serverErrorPage(status: number): string {
  const title = { 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' }[status] ?? 'Error';
  return `<!DOCTYPE html>\n<html><head><title>${status} ${title}</title></head><body><h1>${status} ${title}</h1><p>The sandbox injected this failure.</p></body></html>\n`;
}
