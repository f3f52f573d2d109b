interface ClientQueue {
  /** The tag after this client's last request: where its next one starts, unless the others are past it. */
  finish: number;
  /** Components this client is waiting for. */
  waiting: number;
}

/**
 * Requests from many clients, queued fairly: start-time fair queueing (Goyal, Vin and Cheng,
 * 1996), by component. A request is tagged where its client's previous one ends, or where the
 * queue is now if the client had fallen behind (a client back after a pause is not owed the
 * time it was away); the lowest tag goes first. Clients that all keep asking therefore take
 * turns, one request's worth of components each, whatever the size or number of their requests,
 * and one that asks little goes almost at once. The tags are the rate limiter's priorities
 * (throttle/grant-queue.ts serves the lowest first), so the windows' room goes out in that order.
 */
export class FairShare {
  /** The tag of the last part granted: where a client that has fallen behind starts again. */
  #virtual = 0;
  readonly #clients = new Map<string, ClientQueue>();

  /** A request of `components` from `client` joins the queue: its tag. */
  join(client: string, components: number): number {
    const queue = this.#clients.get(client) ?? { finish: 0, waiting: 0 };
    const start = Math.max(this.#virtual, queue.finish);
    queue.finish = start + components;
    queue.waiting += components;
    this.#clients.set(client, queue);
    return start;
  }

  /** `components` of a request tagged `start` were granted. */
  served(client: string, start: number, components: number): void {
    this.#virtual = Math.max(this.#virtual, start);
    this.#leave(client, components, 0);
  }

  /** `components` of a request will not be granted (it stopped waiting): its place goes back. */
  withdrawn(client: string, components: number): void {
    this.#leave(client, components, components);
  }

  #leave(client: string, components: number, giveBack: number): void {
    const queue = this.#clients.get(client);
    if (!queue) return;
    queue.waiting -= components;
    queue.finish -= giveBack;
    // A client with nothing waiting, and no turn owed to the others, is forgotten: memory stays with the clients asking.
    if (queue.waiting <= 0 && queue.finish <= this.#virtual) this.#clients.delete(client);
  }

  /**
   * Components that would be granted before `components` more of `client`'s: its own waiting
   * ones, and up to as many of each other client's (they take turns).
   */
  ahead(client: string, components: number): number {
    let ahead = 0;
    for (const [name, queue] of this.#clients) ahead += name === client ? queue.waiting : Math.min(queue.waiting, components);
    return ahead;
  }

  /** Components waiting, by client (those waiting for nothing left out). */
  waiting(): Map<string, number> {
    return new Map([...this.#clients].filter(([, queue]) => queue.waiting > 0).map(([name, queue]) => [name, queue.waiting]));
  }
}
