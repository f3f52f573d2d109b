import { describe, expect, it } from 'vitest';
import { addresses, call, dataSandbox, VALMONTE } from './http.js';

describe('deterministic synthetic data', () => {
  it('gives the same answers from two sandbox instances', async () => {
    const [first, second] = await Promise.all([dataSandbox(), dataSandbox({ seed: 'another seed' })]);
    try {
      const query = { components: 'property/value,property/ltv_details,property/school,property/block_crime,property/sales_history' };
      const body = addresses(20, 'Same');
      const [a, b] = await Promise.all([first, second].map((sandbox) => call(sandbox, '/v2/property/component_mget', { query, body })));
      expect(a!.text).toBe(b!.text);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('normalizes identifiers: case, spacing, full state names; the slug resolves to the same property', async () => {
    const sandbox = await dataSandbox();
    try {
      const value = async (item: Record<string, string>) => {
        const chunk = (await call(sandbox, '/v2/property/value', { body: [item] })).json[0];
        return { slug: chunk.address_info.slug, value: chunk['property/value'].result };
      };
      const plain = await value(VALMONTE);
      expect(await value({ address: '  43   VALMONTE plaza ', zipcode: '90274' })).toEqual(plain);
      // The city given is kept (the ZIP's postal city is Palos Verdes Peninsula): the slug names it, the data is the house's.
      const withCity = await value({ address: '43 Valmonte Plaza', zipcode: '90274', city: 'Palos Verdes Estates', state: 'California' });
      expect(withCity).toEqual({ slug: '43-Valmonte-Plz-Palos-Verdes-Estates-CA-90274', value: plain.value });
      expect(await value({ slug: plain.slug })).toEqual(plain);
      expect(await value({ slug: withCity.slug })).toEqual(withCity);
      const baltimore = { address: '10 Light St', city: 'Baltimore' };
      expect(await value({ ...baltimore, state: 'maryland' })).toEqual(await value({ ...baltimore, state: 'MD' }));
      expect((await value({ address: '44 Valmonte Plaza', zipcode: '90274' })).value).not.toEqual(plain.value);
    } finally {
      await sandbox.close();
    }
  });
});
