import { PORT_MAX, portNumber } from '../config/env-values';
import { writeLine } from './closed-output';
import { oneLineText } from '../core/text/one-line-text';
import type { Env, EnvNeed } from '../config/env';

/** A `convengine` sub-command. Each lives in its own module under cli/commands/; its name and summary in the index. */
export interface CliCommand {
  usage: string;
  /** What the command needs set (config/env.ts), checked with every variable that is set, before it runs. */
  needs?: readonly EnvNeed[];
  /** Returns the process exit code. `env` is the environment validated with `needs` (cli/environment.ts). */
  run(args: string[], io: CliIo, env: Env): Promise<number>;
}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  stdin: NodeJS.ReadableStream;
}

/** The process's own streams: a line for a reader that has gone is dropped (cli/closed-output.ts). */
export const processIo: CliIo = {
  out: (line) => writeLine('stdout', line),
  err: (line) => writeLine('stderr', line),
  stdin: process.stdin,
};

export function wantsHelp(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

export interface ParsedArgs {
  positional: string[];
  options: Map<string, string[]>;
}

/** The options a command accepts. */
export interface OptionSpec {
  /** `--name value` or `--name=value`: without a value it is a usage error, never the string "true". */
  values: readonly string[];
  /**
   * Those of `values` that may be given more than once, each value kept in order. Any other given twice is a usage
   * error: reading one of its values dropped the other (`erase --conversation A --conversation B` erased only B).
   */
  repeatable?: readonly string[];
  /** Present or absent (their value is "true"): they never take the next argument, and `--flag=x` is refused. */
  flags?: readonly string[];
  /** false: the command takes no positional argument, and parseCommandArgs lists any among the unexpected. */
  positional?: boolean;
}

export interface DeclaredArgs extends ParsedArgs {
  /** Options the spec does not name, as given (`--bogus`); they take no value, so one after them is positional. */
  unknown: string[];
}

/** The value of a declared option at `args[i]`, whether it consumed the next argument, or null when it has none. */
function optionValue(args: string[], i: number, eq: number): { value: string; consumed: boolean } | null {
  const arg = args[i] as string;
  const next = args[i + 1];
  if (eq > 0) return arg.length > eq + 1 ? { value: arg.slice(eq + 1), consumed: false } : null;
  return next !== undefined && !next.startsWith('--') ? { value: next, consumed: true } : null;
}

/**
 * Parses `args` against `spec`; a string is the one-line usage error: a value option given without a
 * value (`--home` alone would otherwise name a directory "true"), a flag given one, or a value option that is not
 * repeatable given twice. A flag given twice is only present.
 */
export function readOptions(args: string[], spec: OptionSpec): DeclaredArgs | string {
  const flags = new Set(spec.flags ?? []);
  const values = new Set(spec.values);
  const repeatable = new Set(spec.repeatable ?? []);
  const parsed: DeclaredArgs = { positional: [], options: new Map(), unknown: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (!arg.startsWith('--')) parsed.positional.push(arg);
    else if (flags.has(name)) {
      if (eq > 0) return `--${name} takes no value`;
      parsed.options.set(name, [...(parsed.options.get(name) ?? []), 'true']);
    } else if (values.has(name)) {
      const given = optionValue(args, i, eq);
      if (!given) return `--${name} needs a value`;
      if (parsed.options.has(name) && !repeatable.has(name)) return `--${name} may be given only once`;
      if (given.consumed) i++;
      parsed.options.set(name, [...(parsed.options.get(name) ?? []), given.value]);
    } else parsed.unknown.push(`--${name}`);
  }
  return parsed;
}

/** readOptions that also refuses undeclared options, as `<command>: unexpected argument(s): --bogus`. */
export function parseCommandArgs(command: string, args: string[], spec: OptionSpec): ParsedArgs | string {
  const parsed = readOptions(args, spec);
  if (typeof parsed === 'string') return parsed;
  const unexpected = spec.positional === false ? [...parsed.unknown, ...parsed.positional] : parsed.unknown;
  if (unexpected.length > 0) return `${command}: unexpected argument(s): ${unexpected.join(' ')}`;
  return { positional: parsed.positional, options: parsed.options };
}

/**
 * Prints a usage error and the command's synopsis (its usage up to the first blank line); returns exit code 2. The
 * message quotes the arguments, which a script may have taken from anywhere: their controls are shown, not obeyed.
 */
export function usageError(io: CliIo, message: string, usage: string): number {
  io.err(oneLineText(message));
  io.err(`Usage: ${usage.split('\n\n')[0]}`);
  return 2;
}

/** A port option's value (`fallback` when absent), or the usage error: Node's own message names no option. */
export function portOption(options: Map<string, string[]>, name: string, fallback: number): number | string {
  const text = options.get(name)?.at(-1);
  if (text === undefined) return fallback;
  return portNumber(text, 0) ?? `--${name} expects a number from 0 to ${PORT_MAX}`;
}
