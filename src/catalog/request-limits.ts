/** The spec's limit on items per request (a POST's body, a component_mget's): the batches, the flags and the checks all read it here. */
export const MAX_ITEMS_PER_REQUEST = 100;
