import { existsSync, readFileSync, writeFileSync } from 'node:fs';

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function verdict(pass) {
  if (pass === undefined) return '—';
  return pass ? 'pass' : '**miss**';
}

/** One figure's measured block: when, where, the command, what was measured, the ratios. */
export function figureBlock(figure, result, when, machine) {
  const parts = [`Measured ${when} on ${machine}. Reproduce: \`node test/bench/run.mjs ${figure}\` (after \`npm run build\`).`];
  if (result.measurements) parts.push(table(['measured', 'value'], result.measurements));
  if (result.table) parts.push(table(result.table.header, result.table.rows));
  // A figure of measurements alone (the store's own costs) has no target to meet.
  if (result.checks.length > 0) {
    parts.push(
      table(
        ['figure', 'value', 'target', 'result'],
        result.checks.map((check) => [check.name, check.value, check.target, verdict(check.pass)]),
      ),
    );
  }
  return parts.join('\n\n');
}

/**
 * Replaces the text between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, keeping everything
 * around it (the written analysis of what limits each figure); a missing block is appended.
 */
export function updateBlocks(path, blocks) {
  let text = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  for (const [name, body] of Object.entries(blocks)) {
    const open = `<!-- bench:${name} -->`;
    const close = `<!-- /bench:${name} -->`;
    const start = text.indexOf(open);
    const end = text.indexOf(close);
    const block = `${open}\n${body}\n${close}`;
    text =
      start >= 0 && end > start
        ? text.slice(0, start) + block + text.slice(end + close.length)
        : `${text.trimEnd()}\n\n## ${name}\n\n${block}\n`;
  }
  writeFileSync(path, text);
}

/** The checks as plain lines for the terminal. */
export function consoleLines(figure, result) {
  return result.checks.map(
    (check) => `${figure}: ${check.name} = ${check.value} (target ${check.target}) ${verdict(check.pass).replace(/\*/g, '')}`,
  );
}
