import { readdirSync, readFileSync } from 'node:fs';
import { UsageError } from '../errors/index.js';
import type { Io } from './io.js';

/** The guides: docs/ beside dist/, in a clone and in the installed package alike (package.json "files"). */
const DOCS = new URL('../../docs/', import.meta.url);

/** Each guide by the name of its page (docs/nightly.md is `nightly`), with its title. */
function guides(): { name: string; title: string }[] {
  return readdirSync(DOCS)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => ({ name: file.slice(0, -'.md'.length), title: /^# (.+)$/m.exec(readFileSync(new URL(file, DOCS), 'utf8'))?.[1] ?? '' }));
}

/** Each guide's command and title; a guide named as a command is `help guide NAME`, as `help NAME` is the command's help. */
function guideList(commandNames: readonly string[]): string {
  const listed = guides().map((guide) => ({
    command: `propdata help ${commandNames.includes(guide.name) ? 'guide ' : ''}${guide.name}`,
    title: guide.title,
  }));
  const width = Math.max(...listed.map((guide) => guide.command.length));
  return `${listed.map((guide) => `${guide.command.padEnd(width)}  ${guide.title}`).join('\n')}\n`;
}

/** A guide as a terminal shows it: the page's markdown without the comment lines only its tests read (`<!-- runs -->`). */
function guideText(name: string): string {
  if (!guides().some((guide) => guide.name === name)) throw new UsageError(`no guide named "${name}": propdata help guides lists them`);
  return readFileSync(new URL(`${name}.md`, DOCS), 'utf8').replace(/^[ \t]*<!--.*-->\n/gm, '');
}

/**
 * `propdata help nightly` prints docs/nightly.md; `help guide NAME` prints a guide whose name a
 * command has too (`help sandbox` stays the command's help); `help guides` lists them. `words` are
 * what follows `help`; false when they ask for a command's help instead.
 */
export function printGuide(words: readonly string[], commandNames: readonly string[], io: Io): boolean {
  const [first, second, ...rest] = words;
  if (first === 'guides' && second === undefined) io.stdout.write(guideList(commandNames));
  else if (first === 'guide' && second !== undefined && rest.length === 0) io.stdout.write(guideText(second));
  else if (first !== undefined && second === undefined && !commandNames.includes(first) && guides().some((guide) => guide.name === first))
    io.stdout.write(guideText(first));
  else return false;
  return true;
}
