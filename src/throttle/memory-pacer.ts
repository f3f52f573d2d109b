import type { Clock } from './clock.js';
import { pacerOn, type SharedPacer, type SharedState } from './shared-pacer.js';

/**
 * The shared pacer over a state in memory: several limiters in one process (the tests, the bench's
 * sweep), with the very rules a store applies, on the clock it is given.
 */
export function memoryPacer(state: SharedState, owner: string, clock: Pick<Clock, 'now'>): SharedPacer {
  return pacerOn(owner, (change) => Promise.resolve(change(state, clock.now())));
}
