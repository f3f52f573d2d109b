/** A chunk exactly as the service returned it for one item: one member per section, and address_info or block_info. */
export type Chunk = Record<string, unknown>;
