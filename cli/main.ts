import { type CliIo, processIo, wantsHelp } from './command';
import { commands } from './commands';
import { INVALID_ENVIRONMENT_EXIT, runWithValidEnvironment } from './environment';

function printUsage(io: CliIo): void {
  io.out('Usage: convengine <command> [options]');
  io.out('');
  io.out('Commands:');
  const width = Math.max(...commands.map((c) => c.name.length));
  for (const c of commands) io.out(`  ${c.name.padEnd(width)}  ${c.summary}`);
  io.out('');
  io.out('Run `convengine <command> --help` for the options of one command.');
  io.out('');
  io.out(
    `Exit codes: 0 done, 1 failed (a command's --help may say more), ${INVALID_ENVIRONMENT_EXIT} usage error or invalid ` +
      'environment: every command checks every variable that is set (docs/configuration.md).'
  );
}

export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    printUsage(io);
    return name ? 0 : 1;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.err(`Unknown command "${name}".`);
    printUsage(io);
    return 1;
  }
  const command = await entry.load();
  if (wantsHelp(rest)) {
    io.out(`Usage: ${command.usage}`);
    io.out('');
    io.out(entry.summary);
    return 0;
  }
  return runWithValidEnvironment(io, () => command.run(rest, io));
}
