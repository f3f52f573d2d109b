import { LEVEL_SPECS, type Level } from '../../catalog/index.js';
import { UsageError } from '../../errors/index.js';
import { flagName } from '../options.js';
import { EXAMPLE_IDENTIFIERS } from './command-levels.js';

/** A word as the user typed it, quoted when it holds a space. */
const shown = (word: string) => (/\s/.test(word) ? `"${word}"` : word);

/**
 * Words after a query command (`propdata property value "43 Valmonte Plaza" 90274`) are the
 * likeliest first guess at giving an item: commander would say "too many arguments". Say that
 * identifiers are flags, which ones, and show the command as it should read.
 */
export function refuseIdentifierWords(words: readonly string[], command: string, level: Level): void {
  if (words.length === 0) return;
  const flags = LEVEL_SPECS[level].identifiers.map((identifier) => `--${flagName(identifier.name)}`).join(', ');
  const example = EXAMPLE_IDENTIFIERS[level];
  throw new UsageError(
    `unexpected ${words.map(shown).join(' ')}: give identifiers as flags (${flags})` + (example ? `, e.g. ${command} ${example}` : ''),
    'E_IDENTIFIER_WORDS',
  );
}
