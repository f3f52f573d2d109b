import type { Command } from 'commander';
import { ENDPOINTS, isMgetComponent } from '../../catalog/index.js';
import { attachAllOptions } from '../deferred-options.js';
import type { CommandContext } from './command-context.js';

/** What a command's first argument may be, besides its subcommands and options. */
function argumentsOf(name: string): string[] {
  switch (name) {
    case 'mget':
      return ENDPOINTS.filter((endpoint) => isMgetComponent(endpoint)).map((endpoint) => endpoint.name);
    case 'estimate':
      return ENDPOINTS.map((endpoint) => endpoint.name);
    case 'call':
      return ENDPOINTS.map((endpoint) => `${endpoint.version}/${endpoint.name}`);
    case 'completion':
      return [...SHELLS];
    default:
      return [];
  }
}

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** Options whose value is a file: the shell completes a path after them. */
const FILE_VALUES = /^--(input|output|report|store|secret-file)$/;

/** One command of the tree, by the words that reach it (`property value`), with what may follow it. */
interface Node {
  path: string;
  words: string[];
  /** Options taking a value: their choices when fixed, `@file` for a path, empty for anything. */
  values: Map<string, string>;
}

/** Walks the program as built (the catalog's endpoints and the declared options), so the script never lags the commands. */
function nodesOf(command: Command, path = ''): Node[] {
  const options = command.options;
  const values = new Map<string, string>();
  for (const option of options) {
    if (!option.long || !(option.required || option.optional)) continue;
    values.set(option.long, option.argChoices?.join(' ') ?? (FILE_VALUES.test(option.long) ? '@file' : ''));
    if (option.short) values.set(option.short, values.get(option.long)!);
  }
  const subcommands = command.commands.filter((sub) => !(sub as Command & { _hidden?: boolean })._hidden);
  const words = [
    ...subcommands.map((sub) => sub.name()),
    ...(path === '' ? ['help'] : []),
    ...(path === '' ? [] : argumentsOf(command.name())),
    ...options.flatMap((option) => (option.hidden ? [] : [option.long ?? option.short ?? ''])).filter(Boolean),
    '--help',
  ];
  return [{ path, words, values }, ...subcommands.flatMap((sub) => nodesOf(sub, path === '' ? sub.name() : `${path} ${sub.name()}`))];
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bashScript(nodes: Node[]): string {
  const paths = nodes.map((node) => node.path).filter(Boolean);
  const words = nodes.map((node) => `    ${quote(node.path)}) words=${quote(node.words.join(' '))} ;;`);
  const values = nodes.flatMap((node) =>
    [...node.values].map(([flag, value]) => `    ${quote(`${node.path}|${flag}`)}) value=${quote(value)} ;;`),
  );
  return `# propdata completion for bash (and zsh through bashcompinit).
# Load it in this shell:   source <(propdata completion bash)
# or for every shell:      propdata completion bash > ~/.local/share/bash-completion/completions/propdata
_propdata_paths=${quote(`|${paths.join('|')}|`)}
_propdata() {
  # zsh (bashcompinit) runs this too: ksh emulation gives it bash's 0-based arrays.
  [[ -n \${ZSH_VERSION-} ]] && emulate -L ksh
  local cur prev path="" word next words value i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ $word == -* ]] && continue
    next="\${path:+$path }$word"
    [[ $_propdata_paths == *"|$next|"* ]] && path="$next"
  done
  value="-"
  case "$path|$prev" in
${values.join('\n')}
  esac
  if [[ $value == @file ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
    return
  elif [[ $value != - ]]; then
    words="$value"
  else
    case "$path" in
${words.join('\n')}
    esac
  fi
  # Filtered here, not by compgen -W: zsh's stand-in for compgen does not filter outside a completion.
  COMPREPLY=()
  for word in $words; do
    [[ $word == "$cur"* ]] && COMPREPLY+=("$word")
  done
}

complete -o default -F _propdata propdata
`;
}

function zshScript(nodes: Node[]): string {
  return `# propdata completion for zsh (bash's, through bashcompinit).
# Load it in this shell:   source <(propdata completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes)
  .split('\n')
  .filter((line) => !line.startsWith('# '))
  .join('\n')}`;
}

function fishScript(nodes: Node[]): string {
  const paths = nodes.map((node) => node.path).filter(Boolean);
  const words = nodes.map((node) => `        case ${quote(node.path)}\n            printf '%s\\n' ${node.words.map(quote).join(' ')}`);
  const values = nodes.flatMap((node) =>
    [...node.values].map(([flag, value]) => `        case ${quote(`${node.path}|${flag}`)}\n            echo ${quote(value)}`),
  );
  return `# propdata completion for fish.
# Load it in this shell:   propdata completion fish | source
# or for every shell:      propdata completion fish > ~/.config/fish/completions/propdata.fish
set -g __propdata_paths ${paths.map(quote).join(' ')}
function __propdata_path
    set -l path ''
    for word in (commandline -opc)[2..-1]
        string match -q -- '-*' $word; and continue
        set -l next (string trim -- "$path $word")
        contains -- $next $__propdata_paths; and set path $next
    end
    echo $path
end
function __propdata_value
    set -l previous (commandline -opc)[-1]
    switch (__propdata_path)"|$previous"
${values.join('\n')}
        case '*'
            echo -
    end
end
function __propdata_candidates
    set -l value (__propdata_value)
    if test "$value" = @file
        __fish_complete_path (commandline -ct)
        return
    else if test "$value" != -
        string split ' ' -- $value
        return
    end
    switch (__propdata_path)
${words.join('\n')}
    end
end
complete -c propdata -f -a '(__propdata_candidates)'
`;
}

function completionScript(program: Command, shell: Shell): string {
  attachAllOptions(program);
  const nodes = nodesOf(program);
  return shell === 'bash' ? bashScript(nodes) : shell === 'zsh' ? zshScript(nodes) : fishScript(nodes);
}

export function registerCompletionCommand(program: Command, context: CommandContext): void {
  program
    .command('completion')
    .argument('<shell>', SHELLS.join(' | '))
    .usage(SHELLS.join('|'))
    .description(
      'print a shell completion script: commands, endpoints (also as mget, estimate and call arguments), options and their choices; ' +
        'source <(propdata completion bash), the same for zsh, propdata completion fish | source',
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ source <(propdata completion bash)',
        "  $ echo 'source <(propdata completion zsh)' >> ~/.zshrc",
        '  $ propdata completion fish > ~/.config/fish/completions/propdata.fish',
      ].join('\n'),
    )
    .action((shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell)) {
        context.messages.error(`propdata: no completion for "${shell}": choose ${SHELLS.join(', ')}`);
        context.exitCode = 2;
        return;
      }
      context.io.stdout.write(completionScript(program, shell as Shell));
    });
}
