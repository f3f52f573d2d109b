import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The clone's root: the README and docs/ are read from here. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every page of the documentation, as paths from the root: the README, then docs/*.md by name. */
export function docPages(): string[] {
  const guides = readdirSync(`${ROOT}docs`).filter((name) => name.endsWith('.md'));
  return ['README.md', ...guides.sort().map((name) => `docs/${name}`)];
}

/** A page's text, by its path from the root (`docs/nightly.md`). */
export const readDoc = (page: string): string => readFileSync(`${ROOT}${page}`, 'utf8');

/**
 * The section of `page` under the heading `heading` (its text, without the #s): from the heading to
 * the next heading of the same level or above. A heading the page lacks is an error naming both,
 * so that a test re-pointed at a moved section says where it looked.
 */
export function docSection(page: string, heading: string): string {
  const text = readDoc(page);
  const match = new RegExp(`^(#+) ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(text);
  if (!match) throw new Error(`${page} has no heading "${heading}"`);
  const rest = text.slice(match.index + match[0].length);
  const next = new RegExp(`^#{1,${match[1]!.length}} `, 'm').exec(rest);
  return rest.slice(0, next?.index);
}

/** The code blocks of `lang` (```sh) in `text`, in order, without their fences. */
export function codeBlocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((match) => match[1]!);
}
