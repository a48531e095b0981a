/* eslint-disable @typescript-eslint/no-require-imports -- require(), not import(): a native import() of an
   extensionless CommonJS path fails under tsx and in the compiled CLI, and each command must load lazily. */
import type { CliCommand } from '../command';
import type * as startModule from './start';
import type * as demoModule from './demo';
import type * as demoToolsModule from './demo-tools';
import type * as workerModule from './worker';
import type * as apiModule from './api';
import type * as devserverModule from './devserver';
import type * as setupTemporalModule from './setup-temporal';
import type * as doctorModule from './doctor';
import type * as migrateModule from './migrate';
import type * as seedModule from './seed';
import type * as validateConfigModule from './validate-config';
import type * as configModule from './config';
import type * as whatifModule from './whatif';
import type * as sqlCheckModule from './sql-check';
import type * as historyModule from './history';
import type * as sreModule from './sre';
import type * as claimsModule from './claims';
import type * as conversationsModule from './conversations';

/**
 * A command as `--help` lists it. Its module, and everything that module loads, is required only when the
 * command runs: `convengine start` starts its PostgreSQL and Temporal servers before it loads the worker and
 * the API (about a second of module loading), so they boot meanwhile.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<CliCommand>;
}

/** Every command, in the order `--help` lists them. */
export const commands: readonly CommandEntry[] = [
  {
    name: 'start',
    summary: 'Run everything in one process on embedded defaults (Temporal, PostgreSQL, scripted LLM, worker, API).',
    load: async () => (require('./start') as typeof startModule).startCommand,
  },
  {
    name: 'demo',
    summary: 'Run the seed conversations through the HTTP API (PORT, API_TOKEN) and check every seed reply.',
    load: async () => (require('./demo') as typeof demoModule).demoCommand,
  },
  {
    name: 'demo-tools',
    summary: "Run the demo tool server the seed packs' HTTP tools call (CONVENGINE_TOOL_DEMO_URL), as `start` does.",
    load: async () => (require('./demo-tools') as typeof demoToolsModule).demoToolsCommand,
  },
  {
    name: 'worker',
    summary: 'Run a Temporal worker for conversation turns (TEMPORAL_ADDRESS, DATABASE_URL, ANTHROPIC_*).',
    load: async () => (require('./worker') as typeof workerModule).workerCommand,
  },
  {
    name: 'api',
    summary: 'Run the HTTP gateway (PORT, HOST, API_TOKEN, OPERATOR_API_TOKEN, DATABASE_URL, TEMPORAL_ADDRESS).',
    load: async () => (require('./api') as typeof apiModule).apiCommand,
  },
  {
    name: 'devserver',
    summary: 'Run the embedded Temporal dev server (gRPC on 127.0.0.1, no Docker or downloads needed).',
    load: async () => (require('./devserver') as typeof devserverModule).devserverCommand,
  },
  {
    name: 'setup-temporal',
    summary: 'Create the Temporal namespace if missing and register the turn search attributes (idempotent).',
    load: async () => (require('./setup-temporal') as typeof setupTemporalModule).setupTemporalCommand,
  },
  {
    name: 'doctor',
    summary: 'Check the Temporal namespace, the activity round trip (slow-server warning) and the database.',
    load: async () => (require('./doctor') as typeof doctorModule).doctorCommand,
  },
  {
    name: 'migrate',
    summary: 'Apply the database migrations (db/migrations) to DATABASE_URL.',
    load: async () => (require('./migrate') as typeof migrateModule).migrateCommand,
  },
  {
    name: 'seed',
    summary: 'Load bundled config packs (faq, move-connections, loan-confirmation, …) into the database.',
    load: async () => (require('./seed') as typeof seedModule).seedCommand,
  },
  {
    name: 'validate-config',
    summary: 'Validate the ce_* config in DATABASE_URL; list every violation as table[id]: reason.',
    load: async () => (require('./validate-config') as typeof validateConfigModule).validateConfigCommand,
  },
  {
    name: 'config',
    summary: 'Config as code: export, diff, apply and validate the ce_* tables as a YAML tree.',
    load: async () => (require('./config') as typeof configModule).configCommand,
  },
  {
    name: 'whatif',
    summary: 'Replay recorded conversations against a draft config and report what would change, per turn.',
    load: async () => (require('./whatif') as typeof whatifModule).whatifCommand,
  },
  {
    name: 'sql-check',
    summary: 'Check SQL statements (stdin, one per line) against the read-only SQL guardrail.',
    load: async () => (require('./sql-check') as typeof sqlCheckModule).sqlCheckCommand,
  },
  {
    name: 'history',
    summary: "Print a readable timeline of a turn's event history (works against real Temporal too).",
    load: async () => (require('./history') as typeof historyModule).historyCommand,
  },
  {
    name: 'sre',
    summary:
      'List turns held for an operator and retry, skip, fail or mark-done their tool call (#22); list the turns awaiting approval.',
    load: async () => (require('./sre') as typeof sreModule).sreCommand,
  },
  {
    name: 'claims',
    summary: 'Housekeeping of large payloads kept out of event history (claims prune --older-than <duration>).',
    load: async () => (require('./claims') as typeof claimsModule).claimsCommand,
  },
  {
    name: 'conversations',
    summary: 'Housekeeping of idle conversations and their audit trail (conversations prune --older-than <duration>).',
    load: async () => (require('./conversations') as typeof conversationsModule).conversationsCommand,
  },
];
