import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { WORK } from '../paths.mjs';

const ITEMS = 20_000;
/** Items per response, as a batch sends them; the pipeline looks items up a block at a time too. */
const BLOCK = 100;
const ROUNDS = 3;
/** Responses claimed and not yet answered while one is kept, as in a first run at full speed (the store's writes trail by up to 16). */
const CLAIMED_AHEAD = 16;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** CPU time (user and system) of this process since `from`, in µs: a busy machine stretches wall time, not this. */
const cpuSince = (from) => {
  const { user, system } = process.cpuUsage(from);
  return user + system;
};

/** An answer of the sandbox's size and shape: address_info (the frame) and one property/value section. */
function answerOf(ref, i) {
  const address = `${i} Dyer Ave`;
  const frame = [
    [
      'address_info',
      {
        address_full: `${address}, Reisterstown, MD 21136`,
        slug: `${i}-dyer-ave-reisterstown-md-21136`,
        address,
        unit: null,
        zipcode: '21136',
        zipcode_plus4: '1234',
        block_id: '240054042023004',
        blockgroup_id: '240054042023',
        county_fips: '24005',
        metrodiv: null,
        msa: '12580',
        city: 'Reisterstown',
        state: 'MD',
        geo_precision: 'rooftop',
        lat: 39.4696,
        lng: -76.8297,
        status: { match: true, requested_item: { address, zipcode: '21136' }, details: [], changes: [], errors: [] },
      },
    ],
    null,
  ];
  const body = {
    api_code: 0,
    api_code_description: 'ok',
    result: { value: { price_mean: 412_000 + i, price_upr: 455_000, price_lwr: 371_000, fsd: 0.101 } },
  };
  return { item: ref.item, frame, sections: [{ ref: ref.sections[0], body }] };
}

/** The spend record of the response holding the block at `at`. */
const requestOf = (account, at) => ({
  at: at + 1,
  run: 'bench',
  account,
  endpoint: 'property/value',
  items: BLOCK,
  components: BLOCK,
  status: 200,
  billed: BLOCK,
  cost: 25,
});

/**
 * A first run's calls for every item, as a run makes them at full speed: each block looked up and
 * claimed CLAIMED_AHEAD responses before its answers are kept (the record releases their claims).
 * Returns µs of CPU per item.
 */
async function firstRunCalls(store, account, refs, answers) {
  const freshness = { maxAgeMs: 86_400_000 };
  const claimsOf = (at) => refs.slice(at, at + BLOCK).map((ref) => ({ item: ref.item, ...ref.sections[0] }));
  const take = async (at) => {
    await store.find(account, refs.slice(at, at + BLOCK), freshness);
    await store.claim(account, 'bench run', claimsOf(at), freshness, 60_000);
  };
  const started = process.cpuUsage();
  for (let at = 0; at < CLAIMED_AHEAD * BLOCK && at < ITEMS; at += BLOCK) await take(at);
  for (let at = 0; at < ITEMS; at += BLOCK) {
    if (at + CLAIMED_AHEAD * BLOCK < ITEMS) await take(at + CLAIMED_AHEAD * BLOCK);
    await store.record({
      request: requestOf(account, at),
      windows: [],
      answers: answers.slice(at, at + BLOCK),
      owner: 'bench run',
      settles: claimsOf(at),
    });
  }
  return cpuSince(started) / ITEMS;
}

/**
 * The store's own cost, without a server or a pipeline: keeping a response's answers (one
 * transaction per response of 100 items), finding items (a block of 100 in one call, and one item
 * a call), and all a first run asks of it (firstRunCalls), in µs of CPU per section and per item,
 * on the compiled store and a fresh file.
 */
export async function storeOps() {
  const { openStore } = await import('../../../dist/store/index.js');
  const { targetForList } = await import('../../../dist/model/query-target.js');
  const { itemRefOf } = await import('../../../dist/model/section-refs.js');
  const target = targetForList('property/value');
  const refs = Array.from({ length: ITEMS }, (_, i) => itemRefOf(target, { address: `${i} Dyer Ave`, zipcode: '21136' }));
  const account = 'bench key:0000000000000000';
  const keep = [];
  const findBlock = [];
  const findOne = [];
  const firstRun = [];
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const file = join(WORK, 'bench-store-ops.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    const store = await openStore(file);
    let started = process.cpuUsage();
    for (let at = 0; at < ITEMS; at += BLOCK) {
      const answers = refs.slice(at, at + BLOCK).map((ref, j) => answerOf(ref, at + j));
      await store.record({ request: requestOf(account, at), windows: [], answers });
    }
    keep.push(cpuSince(started) / ITEMS);
    started = process.cpuUsage();
    let found = 0;
    for (let at = 0; at < ITEMS; at += BLOCK) {
      for (const item of await store.find(account, refs.slice(at, at + BLOCK), { maxAgeMs: 86_400_000 })) if (item.sections[0]) found++;
    }
    findBlock.push(cpuSince(started) / ITEMS);
    started = process.cpuUsage();
    for (const ref of refs) if ((await store.find(account, [ref], { maxAgeMs: 86_400_000 }))[0].sections[0]) found++;
    findOne.push(cpuSince(started) / ITEMS);
    if (found !== 2 * ITEMS) throw new Error(`found ${found} of ${2 * ITEMS} kept sections`);
    await store.close();
    // Closed: the log is folded into the file.
    bytes = statSync(file).size;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    const fresh = await openStore(file);
    firstRun.push(await firstRunCalls(fresh, account, refs, refs.map(answerOf)));
    await fresh.close();
  }
  const µs = (values) => `${median(values).toFixed(1)} µs CPU`;
  return {
    measurements: [
      [`keep: one transaction per response of ${BLOCK} items, per section (median of ${ROUNDS})`, µs(keep)],
      [`find: a block of ${BLOCK} items in one call, per item`, µs(findBlock)],
      ['find: one item a call, per item', µs(findOne)],
      ['file size per kept answer (frame and one section), closed', `${Math.round(bytes / ITEMS)} bytes`],
      [
        `a first run's calls, ${ITEMS.toLocaleString('en-US')} items into a new file, per item: looked up and claimed ${CLAIMED_AHEAD} responses ahead, kept, released`,
        µs(firstRun),
      ],
    ],
    checks: [],
  };
}
