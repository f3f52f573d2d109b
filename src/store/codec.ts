import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * A preset deflate dictionary: the member names and wrappers every answer repeats. A section or an
 * address_info is a few hundred bytes, too little for deflate to find repeats within itself; with
 * these words to refer back to, an answer takes about half the bytes. The most frequent text comes
 * last (the shortest distances). Frozen: data written with it can only be read with the very same
 * bytes, so a better dictionary is a new codec number, never an edit of this one.
 */
const DICTIONARY_1 = Buffer.from(
  [
    '"year_built":,"building_area_sq_ft":,"number_of_bedrooms":,"number_of_bathrooms":,"lot_size_sq_ft":,"tax_year":,"assessment_year":,',
    '"total_assessed_value":,"apn":"","event_type":"","record_date":"","record_book":"","record_page":"","record_doc":"",',
    '"name":"","distance_miles":,"score":,"education_level":["elementary"],"currently_listed":false,"listing_price":,',
    '{"block_info":{"block_id":""}}',
    '{"address_info":{"address_full":"","slug":"","address":"","unit":null,"zipcode":"","zipcode_plus4":"","block_id":"",',
    '"blockgroup_id":"","county_fips":"","metrodiv":"","msa":"","city":"","state":"","geo_precision":"rooftop","lat":,"lng":-',
    ',"status":{"match":true,"requested_item":{"address":"","zipcode":""},"details":[],"changes":[],"errors":[]}},',
    '{"api_code":204,"api_code_description":"no content","result":null}',
    '{"api_code":0,"api_code_description":"ok","result":{"value":{"price_mean":,"price_upr":,"price_lwr":,"fsd":0.',
  ].join(''),
);

/** The first byte of every stored blob: how the rest is encoded. */
const DEFLATE_DICTIONARY_1 = 1;

export function pack(text: string): Buffer {
  const body = deflateRawSync(Buffer.from(text), { dictionary: DICTIONARY_1 });
  return Buffer.concat([Buffer.of(DEFLATE_DICTIONARY_1), body]);
}

export function unpack(blob: Buffer): string {
  // A new codec comes with a new schema version, which an older propdata refuses before reading:
  // an unknown first byte is damage.
  if (blob[0] !== DEFLATE_DICTIONARY_1)
    throw Object.assign(new Error(`a stored answer has an unknown encoding (${String(blob[0])})`), { code: 'Z_DATA_ERROR' });
  return inflateRawSync(blob.subarray(1), { dictionary: DICTIONARY_1 }).toString();
}
