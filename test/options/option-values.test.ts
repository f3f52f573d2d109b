import { describe, expectTypeOf, it } from 'vitest';
import { BATCH_OPTIONS, CONNECTION_OPTIONS, STORE_OPTIONS } from '../../src/cli/options.js';
import type { OptionValues } from '../../src/options/option-spec.js';
import type { SandboxFlagValues } from '../../src/sandbox/options.js';

describe('option values inferred from declarations', () => {
  it('types each attribute by its parser, choices or flag shape, required when it has a default', () => {
    type Batch = OptionValues<typeof BATCH_OPTIONS>;
    expectTypeOf<Batch['batchSize']>().toEqualTypeOf<number>();
    expectTypeOf<Batch['format']>().toEqualTypeOf<'csv' | 'json' | 'jsonl' | 'xlsx' | undefined>();
    expectTypeOf<Batch['input']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Batch['quiet']>().toEqualTypeOf<true | undefined>();
    expectTypeOf<Batch['dedupe']>().toEqualTypeOf<boolean>();
    expectTypeOf<Batch['map']>().toEqualTypeOf<Record<string, string> | undefined>();
    type Connection = OptionValues<typeof CONNECTION_OPTIONS>;
    expectTypeOf<Connection['maxRetries']>().toEqualTypeOf<number>();
    expectTypeOf<Connection['baseUrl']>().toEqualTypeOf<string | undefined>();
    type Store = OptionValues<typeof STORE_OPTIONS>;
    expectTypeOf<Store['store']>().toEqualTypeOf<string | false | undefined>();
    expectTypeOf<SandboxFlagValues['spurious429Rate']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<SandboxFlagValues['port']>().toEqualTypeOf<number>();
  });
});
