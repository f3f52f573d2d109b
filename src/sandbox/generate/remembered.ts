/**
 * Values computed once per area (a ZIP, a street, a county) that the many properties in it share.
 * Bounded: when full it forgets everything and starts again, which costs one recomputation per key
 * and keeps a long run's memory flat. Only for values that follow from the key alone.
 */
export class Remembered<V> {
  readonly #values = new Map<string, V>();

  readonly #limit: number;

  constructor(limit = 4096) {
    this.#limit = limit;
  }

  get(key: string, compute: () => V): V {
    let value = this.#values.get(key);
    if (value === undefined) {
      value = compute();
      if (this.#values.size >= this.#limit) this.#values.clear();
      this.#values.set(key, value);
    }
    return value;
  }
}
