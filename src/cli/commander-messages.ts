/**
 * Commander's own errors in propdata's form: they start as every other message does
 * (`propdata: `, not `error: `) and stay on one line, its suggestion included
 * (`propdata: unknown option '--adress'; did you mean --address?`).
 */
export function commanderMessage(text: string): string {
  const line = text
    .trimEnd()
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.*)\?\)$/, '; did you mean $1?');
  return `propdata: ${line}\n`;
}
