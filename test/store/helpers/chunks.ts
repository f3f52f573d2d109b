import type { Chunk } from '../../../src/model/chunk.js';

/** A chunk as the service sends it for property endpoints: address_info, the sections in request order, then meta if sent. */
export function propertyChunk(address: string, endpoints: readonly string[], options: { meta?: string; price?: number } = {}): Chunk {
  const chunk: Chunk = {
    address_info: {
      address_full: `${address}, Reisterstown, MD 21136`,
      slug: address.toLowerCase().replace(/\W+/g, '-'),
      unit: null,
      zipcode: '21136',
      lat: 39.4696,
      lng: -76.8297,
      status: { match: true, requested_item: { address, zipcode: '21136' }, details: [], changes: [], errors: [] },
    },
  };
  for (const endpoint of endpoints) {
    chunk[endpoint] =
      endpoint === 'property/school'
        ? { api_code: 204, api_code_description: 'no content', result: null }
        : {
            api_code: 0,
            api_code_description: 'ok',
            result: { value: { price_mean: options.price ?? 412000, price_upr: 455000, price_lwr: 371000, fsd: 0.101 } },
          };
  }
  if (options.meta !== undefined) chunk.meta = options.meta;
  return chunk;
}
