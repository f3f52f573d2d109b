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

/** A page's headings, outside code blocks (where `# ` starts a shell comment): their level, text and line. */
export function headings(text: string): { level: number; text: string; line: number }[] {
  let fenced = false;
  return text.split('\n').flatMap((line, index) => {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^(#+) (.*)$/.exec(line);
    return heading ? [{ level: heading[1]!.length, text: heading[2]!, line: index }] : [];
  });
}

/**
 * The section of `page` under the heading `heading` (its text, without the #s): from the heading to
 * the next heading of the same level or above. A heading the page lacks is an error naming both,
 * so that a test re-pointed at a moved section says where it looked.
 */
export function docSection(page: string, heading: string): string {
  const text = readDoc(page);
  const all = headings(text);
  const at = all.findIndex((each) => each.text === heading);
  if (at < 0) throw new Error(`${page} has no heading "${heading}"`);
  const next = all.slice(at + 1).find((each) => each.level <= all[at]!.level);
  return text
    .split('\n')
    .slice(all[at]!.line + 1, next?.line)
    .join('\n');
}

/** The code blocks of `lang` (```sh) in `text`, in order, without their fences. */
export function codeBlocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((match) => match[1]!);
}
