import { watchClosedOutput } from './closed-output';
import { type CliIo, processIo, wantsHelp } from './command';
import { commands } from './commands';
import { INVALID_ENVIRONMENT_EXIT, runWithValidEnvironment } from './environment';
import { failIfUnsettled } from './unsettled';

/** Exit code of a missing or unknown command, as of a sub-command's usage error (usageError). */
const USAGE_EXIT = 2;

/** The usage, through `print`: stdout when asked for (`--help`), stderr when it answers a usage error. */
function printUsage(print: (line: string) => void): void {
  print('Usage: convengine <command> [options]');
  print('');
  print('Commands:');
  const width = Math.max(...commands.map((c) => c.name.length));
  for (const c of commands) print(`  ${c.name.padEnd(width)}  ${c.summary}`);
  print('');
  print('Run `convengine <command> --help` for the options of one command.');
  print('');
  print(
    `Exit codes: 0 done, 1 failed (a command's --help may say more), ${INVALID_ENVIRONMENT_EXIT} usage error or invalid ` +
      'environment: every command checks every variable that is set (docs/configuration.md), 141 the reader of ' +
      'stdout went away (`| head -1`; servers keep serving instead).'
  );
}

export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  // `convengine help start` is `convengine start --help`: it printed the top-level usage instead.
  if (argv[0] === 'help' && argv.length > 1) return runCli([...argv.slice(1), '--help'], io);
  // `| head -1` ends a command quietly (exit 141) instead of crashing it on EPIPE; servers keep serving.
  if (io === processIo) watchClosedOutput();
  const [name, ...rest] = argv;
  if (!name) {
    printUsage((line) => io.err(line));
    return USAGE_EXIT;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    printUsage((line) => io.out(line));
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.err(`Unknown command "${name}".`);
    printUsage((line) => io.err(line));
    return USAGE_EXIT;
  }
  // Every command, through this one guard: a command that never finishes fails instead of exiting 0 (cli/unsettled.ts).
  return failIfUnsettled(name, io, async () => {
    const command = await entry.load();
    if (wantsHelp(rest)) {
      io.out(`Usage: ${command.usage}`);
      io.out('');
      io.out(entry.summary);
      return 0;
    }
    return runWithValidEnvironment(io, (env) => command.run(rest, io, env), command.needs);
  });
}
