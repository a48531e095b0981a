import type { CliCommand } from '../command';
import { apiCommand } from './api';
import { claimsCommand } from './claims';
import { configCommand } from './config';
import { demoCommand } from './demo';
import { devserverCommand } from './devserver';
import { doctorCommand } from './doctor';
import { historyCommand } from './history';
import { migrateCommand } from './migrate';
import { seedCommand } from './seed';
import { setupTemporalCommand } from './setup-temporal';
import { sqlCheckCommand } from './sql-check';
import { sreCommand } from './sre';
import { startCommand } from './start';
import { validateConfigCommand } from './validate-config';
import { whatifCommand } from './whatif';
import { workerCommand } from './worker';

/** Every command, in the order `--help` lists them. */
export const commands: CliCommand[] = [
  startCommand,
  demoCommand,
  workerCommand,
  apiCommand,
  devserverCommand,
  setupTemporalCommand,
  doctorCommand,
  migrateCommand,
  seedCommand,
  validateConfigCommand,
  configCommand,
  whatifCommand,
  sqlCheckCommand,
  historyCommand,
  sreCommand,
  claimsCommand,
];
