import { createServer } from 'node:http';

// A service that costs nothing but HTTP and JSON: every POST is answered at once with one
// `property/value` chunk per item, shaped and sized like the sandbox's (the item echoed, the
// rest fixed). Prints its base URL on stdout. Usage: node json-server.mjs
function chunkFor(item) {
  return {
    address_info: {
      address_full: `${item.address}, ${item.city}, ${item.state} ${item.zipcode}`,
      slug: 'synthetic-slug_for-reference_md_21136',
      address: item.address,
      unit: null,
      zipcode: item.zipcode,
      zipcode_plus4: '6005',
      block_id: '240939271272822',
      blockgroup_id: '240939271272',
      county_fips: '24093',
      metrodiv: null,
      msa: null,
      city: item.city,
      state: item.state,
      geo_precision: 'rooftop',
      lat: 38.855454,
      lng: -77.223026,
      status: {
        match: true,
        requested_item: item,
        details: ['resolved to a canonical address (rooftop precision)'],
        changes: [],
        errors: [],
      },
    },
    'property/value': {
      api_code: 0,
      api_code_description: 'ok',
      result: { value: { price_mean: 386000, price_upr: 403177, price_lwr: 368823, fsd: 0.0445 } },
    },
  };
}

const server = createServer((request, response) => {
  const parts = [];
  request.on('data', (part) => parts.push(part));
  request.on('end', () => {
    const items = JSON.parse(Buffer.concat(parts).toString('utf8'));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(items.map(chunkFor)));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`base URL: http://127.0.0.1:${server.address().port}`));
process.once('SIGINT', () => server.close(() => process.exit(0)));
