import type { CliCommand } from '../command';
import { migrateCommand } from './migrate';
import { seedCommand } from './seed';
import { sqlCheckCommand } from './sql-check';
import { validateConfigCommand } from './validate-config';

/** Every command, in the order `--help` lists them. */
export const commands: CliCommand[] = [migrateCommand, seedCommand, validateConfigCommand, sqlCheckCommand];
