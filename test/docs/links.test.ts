import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, headings, readDoc, ROOT } from '../helpers/docs.js';

/** A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** A page's anchors: each heading's, a repeated one numbered (`-1`, `-2`) as GitHub numbers them. */
function anchorsOf(page: string): Set<string> {
  const seen = new Map<string, number>();
  return new Set(
    headings(readDoc(page)).map(({ text }) => {
      const base = slug(text);
      const times = seen.get(base) ?? 0;
      seen.set(base, times + 1);
      return times === 0 ? base : `${base}-${times}`;
    }),
  );
}

/** The relative links of a page's prose (code blocks and code spans left out): `[text](target)`. */
function linksOf(page: string): string[] {
  const prose = readDoc(page)
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target));
}

/** What is wrong with a link of `page`, or undefined: a file that is not there, or a heading that file lacks. */
function brokenLink(page: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? page : relative(ROOT, normalize(join(dirname(join(ROOT, page)), path)));
  if (!existsSync(join(ROOT, file))) return `${file} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(join(ROOT, file)).isDirectory() || !file.endsWith('.md')) return `${file} has no headings to link to`;
  return anchorsOf(file).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

describe('the links of the README and docs/', () => {
  it('makes anchors as GitHub does', () => {
    expect(slug("propdata serve's options")).toBe('propdata-serves-options');
    expect(slug('One gateway for the team: `propdata serve`')).toBe('one-gateway-for-the-team-propdata-serve');
    expect(slug('Decisions where the spec says "not shown"')).toBe('decisions-where-the-spec-says-not-shown');
  });

  for (const page of docPages()) {
    it(`${page}: every relative link names a file that exists, and a heading it has`, () => {
      const links = linksOf(page);
      expect(links.length).toBeGreaterThan(0);
      const broken = links.flatMap((target) => {
        const problem = brokenLink(page, target);
        return problem === undefined ? [] : [`(${target}): ${problem}`];
      });
      expect(broken).toEqual([]);
    });
  }
});
