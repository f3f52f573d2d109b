/**
 * The items a test key (`test_<key>`) may query: the sandbox's stand-in for the service's "test
 * lists". Other items answered to a test key come back with every section api_code 204 and, at
 * property level, address_info.status.match false with the error "test key: item not in the test
 * list"; they are not charged. (The service's own answer is not specified; a 204 per item keeps a
 * batch going, where a 400 would reject the items that are allowed too.)
 */
export const TEST_ITEMS = {
  property: [
    { address: '43 Valmonte Plaza', zipcode: '90274' },
    { address: '7500 Melrose Ave', zipcode: '90046' },
    { address: '10 Light St', city: 'Baltimore', state: 'MD' },
    { address: '77 Massachusetts Ave', zipcode: '02139' },
    { address: '350 5th Ave', zipcode: '10118' },
  ],
  block: [{ block_id: '060376703022003' }, { block_id: '245102401001001' }, { block_id: '360610076001000' }],
} as const;
