/** A `convengine` sub-command. Each lives in its own module under cli/commands/; its name and summary in the index. */
export interface CliCommand {
  usage: string;
  /** Returns the process exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  stdin: NodeJS.ReadableStream;
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  stdin: process.stdin,
};

export function wantsHelp(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/** Parses `--name value` / `--flag` options; repeated options accumulate. */
export function parseOptions(args: string[]): { positional: string[]; options: Map<string, string[]> } {
  const positional: string[] = [];
  const options = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    let value: string;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (i + 1 < args.length && !(args[i + 1] as string).startsWith('--')) value = args[++i] as string;
    else value = 'true';
    options.set(name, [...(options.get(name) ?? []), value]);
  }
  return { positional, options };
}
