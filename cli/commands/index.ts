import type { CliCommand } from '../command';

/** Every command, in the order `--help` lists them. */
export const commands: CliCommand[] = [];
