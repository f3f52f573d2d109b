import type { RunSettingName } from '../config/settings.js';
import type { ConfigReader } from '../config/config-file.js';
import { ConfigError, UsageError } from '../errors/index.js';
import { storePathFrom } from '../store/store-path.js';
import { duration, positiveNumber } from './options.js';

/** Each run setting is read as its flag is: the same parser, so `config set` accepts what the flag does. */
const PARSERS: Readonly<Record<RunSettingName, (value: string) => number>> = {
  'max-age': duration,
  'max-cost-month': positiveNumber,
};

/** A run setting's value, or a ConfigError saying which setting and where (`where`: "config set", the file). */
export function parseRunSetting(name: RunSettingName, value: string, where: string): number {
  try {
    return PARSERS[name](value);
  } catch (error) {
    throw new ConfigError(`${where}: ${name}: ${(error as Error).message}`, 'E_CONFIG_VALUE');
  }
}

export interface RunDefaults {
  maxAgeMs?: number;
  maxCostMonth?: number;
}

/**
 * --max-age and --max-cost-month: the flags when given, else the stored config (opened only then).
 * Neither: no answer is reused and no monthly budget applies.
 */
export async function resolveRunDefaults(
  flags: { maxAge?: number; maxCostMonth?: number },
  store: () => Promise<ConfigReader>,
): Promise<RunDefaults> {
  let opened: ConfigReader | undefined;
  const stored = async (name: RunSettingName): Promise<number | undefined> => {
    opened ??= await store();
    const value = opened.get(name);
    return value === undefined || value === '' ? undefined : parseRunSetting(name, value, `the stored config ${opened.path}`);
  };
  const maxAgeMs = flags.maxAge ?? (await stored('max-age'));
  const maxCostMonth = flags.maxCostMonth ?? (await stored('max-cost-month'));
  return { ...(maxAgeMs === undefined ? {} : { maxAgeMs }), ...(maxCostMonth === undefined ? {} : { maxCostMonth }) };
}

/** The local store a run uses, undefined with --no-store: --max-age and --max-cost-month need one. */
export function runStorePath(
  flag: string | false | undefined,
  env: Record<string, string | undefined>,
  defaults: RunDefaults,
): string | undefined {
  const path = storePathFrom(flag, env);
  if (path === undefined && (defaults.maxAgeMs !== undefined || defaults.maxCostMonth !== undefined)) {
    throw new UsageError(
      '--max-age and --max-cost-month need the local store: drop --no-store (or the setting with `propdata config unset`)',
    );
  }
  return path;
}
