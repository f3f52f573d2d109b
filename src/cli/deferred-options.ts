import { Help, type Command } from 'commander';

/**
 * About 80 endpoint commands take about 50 options each, and building every one of them was most
 * of `--help`'s time. A command registered with deferOptions() gets its options on first use: when
 * commander dispatches to it, when a help text shows it (its own help, or its parent's list of
 * commands, which marks a command that has options with "[options]"), and when the completion
 * script walks the whole tree. Each of those sees the command exactly as if it had been built
 * up front.
 */
const pending = new WeakMap<Command, () => void>();

/** Parents that already attach a subcommand's options before dispatching to it. */
const dispatching = new WeakSet<Command>();

/** `attach` adds the command's options (and whatever else only its use needs); it runs once, on first use. */
export function deferOptions(command: Command, attach: () => void): void {
  pending.set(command, attach);
  const parent = command.parent;
  if (parent && !dispatching.has(parent)) {
    dispatching.add(parent);
    parent.hook('preSubcommand', (_parent, subcommand) => {
      attachOptions(subcommand);
    });
  }
}

function attachOptions(command: Command): void {
  const attach = pending.get(command);
  pending.delete(command);
  attach?.();
}

/** Runs `complete` once `command` has its options: now, or right after its deferred ones are attached. */
export function whenOptionsAttached(command: Command, complete: () => void): void {
  const attach = pending.get(command);
  if (attach === undefined) {
    complete();
    return;
  }
  pending.set(command, () => {
    attach();
    complete();
  });
}

/** Every command below `command` built whole: for a walk of the tree such as the completion script. */
export function attachAllOptions(command: Command): void {
  attachOptions(command);
  for (const subcommand of command.commands) attachAllOptions(subcommand);
}

/**
 * For configureHelp(), which subcommands inherit: a help text is formatted only once the command
 * and the subcommands it lists have their options. Not every help goes through a dispatch:
 * `propdata property help value` shows `value`'s help directly.
 */
export const HELP_WITH_DEFERRED_OPTIONS: Partial<Help> = {
  formatHelp(this: Help, command: Command, helper: Help): string {
    attachOptions(command);
    for (const subcommand of command.commands) attachOptions(subcommand);
    return Help.prototype.formatHelp.call(this, command, helper);
  },
};
