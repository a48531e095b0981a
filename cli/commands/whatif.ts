import { stat } from 'node:fs/promises';
import type { ConfigSnapshot } from '../../core/config/types';
import { countByStatus, hasDifference, type WhatifReport } from '../../core/whatif/diff';
import { formatWhatifReport } from '../../core/whatif/format';
import { shownText } from '../../core/text/one-line-text';
import { inTimestamptzRange, TIMESTAMPTZ_RANGE } from '../../core/timestamptz';
import {
  CONFIG_VERSION_PATTERN,
  draftFromRows,
  draftFromVersion,
  WhatifInputError,
} from '../../activities/whatif/draft';
import { whatifConversation } from '../../activities/whatif/replay';
import { openDatabase, type Database } from '../../db/pool';
import { databaseNowLess } from '../../db/now';
import { conversationsSince } from '../../db/whatif/recording';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { databaseFailure } from '../database-failure';
import { commandDatabaseUrl } from '../environment';
import { loadYamlTree } from './config';
import { outJson } from '../json-line';

const USAGE = [
  'convengine whatif --config <dir|version> (--conversation <id> | --since <time>) [--fail-on-diff] [--json]',
  '',
  'Re-runs recorded turns in this process against a draft config — a YAML tree (convengine config',
  'export) or a stored config version (16 hex digits, or "current") — answering every model question,',
  'tool call, approval and operator decision on a held call from what was recorded (ce_llm_call_log,',
  'the tool audits), so no model and no tool is called. Nothing is written: the replay runs in a',
  'transaction that is rolled back.',
  'Reports per turn what changed: intent, state, rules fired, tools called, response, approvals.',
  'A turn whose draft asks something never recorded is "needs model" (or needs tool / approval / operator).',
  '',
  '--since takes an ISO time (UTC unless it names a zone: 2026-12-01T00:30 is 00:30 UTC) or an age (30m, 12h,',
  "7d, back from the database's now()): every conversation with a turn since then; the report names the instant.",
  'Exit codes: 0 done (no difference, or differences without --fail-on-diff), 1 a difference with',
  '--fail-on-diff (any turn not "same"), 2 usage or bad input (unknown conversation, bad config), 3 the',
  "replay could not run (database unreachable, or refusing the replay's rolled-back writes: a hot standby, a",
  'login that may only read).',
].join('\n');

const OPTIONS = { values: ['config', 'conversation', 'since'], flags: ['fail-on-diff', 'json'], positional: false };
const AGE = /^(\d+)([mhd])$/;
const AGE_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** An ISO 8601 date, optionally with a time (T or a space before it) and a zone (Z or ±hh:mm). */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?([Zz]|[+-]\d{2}:\d{2})?$/;

/** `--since` as read: an instant, or an age measured back from the database's now() (sinceInstant). */
export type Since = { at: Date } | { ageMs: number };

/** Date holds instants within this many ms of 1970: an age past it (99999999999d) is not a time at all. */
const DATE_SPAN_MS = 8.64e15;

/**
 * `--since`: an ISO time or an age; null when it is neither. A time without a zone is UTC, as a date alone is and as
 * every time the product prints is: `new Date('2026-12-01T00:30')` would read it in the machine's zone, so the same
 * command would pick other conversations on a laptop than on a UTC server.
 */
export function parseSince(text: string): Since | null {
  const age = AGE.exec(text);
  if (age) {
    const ageMs = Number(age[1]) * AGE_MS[age[2] as keyof typeof AGE_MS];
    return ageMs > DATE_SPAN_MS ? null : { ageMs };
  }
  const iso = ISO_TIME.exec(text);
  if (!iso?.[1]) return null;
  const [, day, time = '00:00', zone = 'Z'] = iso;
  // Date rolls 2026-02-31 over to March 3: a day the calendar lacks is refused instead.
  const midnight = new Date(`${day}T00:00Z`);
  if (Number.isNaN(midnight.getTime()) || midnight.toISOString().slice(0, 10) !== day) return null;
  const at = new Date(`${day}T${time}${zone.toUpperCase()}`);
  return Number.isNaN(at.getTime()) ? null : { at };
}

/**
 * The instant `--since` names. An age is measured back from the database's now(), the clock every turn's row is dated
 * by: from this host's, running ahead or behind it, `--since 30m` picked the conversations of another half hour.
 */
async function sinceInstant(db: Database, { text, since }: { text: string; since: Since }): Promise<Date> {
  const at = 'at' in since ? since.at : await databaseNowLess(db, since.ageMs);
  const refusal = rangeRefusal(text, at);
  if (refusal !== null) throw new WhatifInputError('BAD_REQUEST', refusal);
  return at;
}

/** Why `--since <text>`, instant `at`, is refused; null when it is not. */
function rangeRefusal(text: string, at: Date): string | null {
  // Outside it the database refused the query: exit 3, as if it could not run, for what is bad input.
  return inTimestamptzRange(at) ? null : `--since "${text}" must be an instant ${TIMESTAMPTZ_RANGE}`;
}

/** Why `--since <text>`, read as `since`, is refused before the database is asked; null when it is not. */
function sinceRefusal(text: string, since: Since | null): string | null {
  if (since === null) return `--since "${text}" is not an ISO time or an age (7d)`;
  // An age is checked on this host's clock here, and again once the database has measured it (sinceInstant).
  return rangeRefusal(text, 'at' in since ? since.at : new Date(Date.now() - since.ageMs));
}

interface Args {
  config: string;
  conversation: string | null;
  since: { text: string; since: Since } | null;
  failOnDiff: boolean;
  json: boolean;
}

function parseArgs(args: string[], io: CliIo): Args | null {
  const parsed = parseCommandArgs('whatif', args, OPTIONS);
  if (typeof parsed === 'string') {
    usageError(io, parsed, USAGE);
    return null;
  }
  const { options } = parsed;
  const one = (name: string) => options.get(name)?.at(-1) ?? null;
  const problem = !one('config')
    ? '--config <dir|version> is required'
    : (one('conversation') === null) === (one('since') === null)
      ? 'name exactly one of --conversation <id> and --since <time>'
      : null;
  const since = one('since');
  const sinceRead = since === null ? null : parseSince(since);
  const sinceProblem = since === null ? null : sinceRefusal(since, sinceRead);
  if (problem ?? sinceProblem) {
    usageError(io, problem ?? (sinceProblem as string), USAGE);
    return null;
  }
  return {
    config: one('config') as string,
    conversation: one('conversation'),
    since: since === null ? null : { text: since, since: sinceRead as Since },
    failOnDiff: options.has('fail-on-diff'),
    json: options.has('json'),
  };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The draft named by --config: a YAML tree directory, else a stored version; null once the problem is printed. */
async function resolveDraft(db: Database, config: string, io: CliIo): Promise<ConfigSnapshot | null> {
  if (await isDirectory(config)) {
    const rows = await loadYamlTree(config, io);
    return rows ? draftFromRows(rows) : null;
  }
  if (!CONFIG_VERSION_PATTERN.test(config)) {
    io.err(`--config ${config}: not a directory, and not a config version ("current" or 16 hex digits)`);
    return null;
  }
  return draftFromVersion(db, config);
}

async function runWhatif(db: Database, args: Args, io: CliIo): Promise<number> {
  const draft = await resolveDraft(db, args.config, io);
  if (!draft) return 2;
  const since = args.since === null ? null : await sinceInstant(db, args.since);
  const ids = since === null ? [args.conversation as string] : await conversationsSince(db, since);
  const report: WhatifReport = {
    config: { version: draft.version, source: args.config },
    ...(since !== null ? { since: since.toISOString() } : {}),
    conversations: [],
  };
  for (const conversationId of ids) {
    report.conversations.push(await whatifConversation({ db }, { conversationId, config: draft }));
  }
  const differs = hasDifference(report);
  if (args.json) outJson(io, { ...report, summary: countByStatus(report), differs });
  else for (const line of formatWhatifReport(report)) io.out(line);
  return differs && args.failOnDiff ? 1 : 0;
}

/** The replay could not run (database unreachable, a query failed): neither 1 (a difference) nor 2 (bad input). */
const EXIT_FAILED = 3;

export const whatifCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseArgs(args, io);
    if (!parsed) return 2;
    const url = commandDatabaseUrl(io);
    if (url === null) return 2;
    const handle = openDatabase(url, { max: 2 });
    try {
      return await runWhatif(handle.db, parsed, io);
    } catch (err) {
      if (err instanceof WhatifInputError) {
        // It names the draft's violations, which quote its rows: their controls are shown.
        io.err(shownText(`whatif: ${err.message}`));
        return 2;
      }
      // Not a verdict on the draft: a CI gate on --fail-on-diff must tell a broken database from a difference.
      io.err(`whatif failed: ${await databaseFailure(handle.pool, err)}`);
      return EXIT_FAILED;
    } finally {
      await handle.close();
    }
  },
};
