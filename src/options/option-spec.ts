/**
 * A command-line option declared as data: the CLI's options and the sandbox's are lists of these.
 * The CLI hands each to commander (cli/add-options.ts), the documentation's option tables are rendered
 * from the same lists (readme-table.ts), and a handler's option type is inferred from its list
 * (OptionValues) rather than written out again.
 */
export interface OptionSpec {
  /** Commander's spelling: `-i, --input <file>`, `--no-dedupe`, `--sandbox`. */
  readonly flags: string;
  readonly description: string;
  /** Turns the text given into the value; `previous` is the value so far, for repeatable options. */
  readonly parse?: (value: string, previous?: unknown) => unknown;
  /** The value when the flag is not given. Import it from the module that owns it; never retype it. */
  readonly defaultValue?: unknown;
  /** The only values allowed (commander's Option.choices()); the value's type is their union. */
  readonly choices?: readonly string[];
  /** An environment variable read when the flag is not given (commander's Option.env()). */
  readonly env?: string;
}

/** `max-retries` from `-r, --max-retries <n>`. */
type LongFlag<Flags extends string> = Flags extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}`
    ? Name
    : Rest
  : never;

/** `maxRetries` from `max-retries`, as commander's attributeName() spells it (`spurious-429-rate`: `spurious429Rate`). */
type Camel<Name extends string> = Name extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : Name;

type Negated<Flags extends string> = LongFlag<Flags> extends `no-${string}` ? true : false;

/** The key under which commander delivers the option's value: `--no-dedupe` sets `dedupe`. */
export type AttributeName<Flags extends string> = LongFlag<Flags> extends `no-${infer Name}` ? Camel<Name> : Camel<LongFlag<Flags>>;

/** What one option delivers when given: the parser's result, one of its choices, its text, or a switch. */
type GivenValue<Option extends OptionSpec> = Option extends { parse: (...args: never[]) => infer Result }
  ? Result
  : Option extends { choices: readonly (infer Choice)[] }
    ? Choice
    : Option['flags'] extends `${string}<${string}>` | `${string}[${string}]`
      ? string
      : Negated<Option['flags']> extends true
        ? false
        : true;

/** An option always has a value when it has a default, or is a `--no-` switch (whose default is true). */
type AlwaysSet<Option extends OptionSpec> = Option extends { defaultValue: unknown } ? true : Negated<Option['flags']>;

type Names<Options extends OptionSpec> = Options extends OptionSpec ? AttributeName<Options['flags']> : never;
type OptionalNames<Options extends OptionSpec> = Options extends OptionSpec
  ? AlwaysSet<Options> extends true
    ? never
    : AttributeName<Options['flags']>
  : never;
type ValueOf<Options extends OptionSpec, Name extends string> = Options extends OptionSpec
  ? AttributeName<Options['flags']> extends Name
    ? GivenValue<Options>
    : never
  : never;
/** A `--no-` switch with no positive twin lacking a default is true unless given. */
type NegatedDefault<Options extends OptionSpec, Name extends string> = Options extends OptionSpec
  ? AttributeName<Options['flags']> extends Name
    ? Negated<Options['flags']> extends true
      ? true
      : never
    : never
  : never;

/**
 * The values a command's action receives for a list of declarations (declared `as const`): one
 * member per attribute name, required when it always has a value, typed by its parser, choices
 * or flag shape. `--store <file>` and `--no-store` together give `store?: string | false`.
 */
export type OptionValues<List extends readonly OptionSpec[]> = {
  readonly [Name in Exclude<Names<List[number]>, OptionalNames<List[number]>>]:
    ValueOf<List[number], Name> | NegatedDefault<List[number], Name>;
} & {
  readonly [Name in OptionalNames<List[number]>]?: ValueOf<List[number], Name>;
};
