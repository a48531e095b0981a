import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadEnv } from '../../config/env';
import { configuredTemporal } from '../../config/temporal-connection';
import { withoutFailureText } from '../../observability/failure-outline';
import { parseCommandArgs, usageError, type CliCommand } from '../command';
import { addressOption } from '../temporal/connect';
import type { Finding } from '../doctor/finding';
import { checkRoundTrip, checkTemporal } from '../doctor/temporal';
import { checkDatabase, checkDeployment, checkSearchCollation } from '../doctor/database';
import { checkAuditTrail, checkConfig } from '../doctor/config';
import { checkApiTokens } from '../doctor/api-tokens';
import { checkApiLimits } from '../doctor/api-limits';
import { checkPooling } from '../doctor/pooling';
import { checkSearchIndexes } from '../doctor/search-indexes';
import { checkTurnPatches } from '../doctor/turn-patches';
import { shownText } from '../../core/text/one-line-text';
import { outJson } from '../json-line';

const USAGE = [
  'convengine doctor [--address host:port] [--namespace name] [--json] [--strict]',
  '',
  'Checks what a worker and the API depend on, on TEMPORAL_ADDRESS (or --address) and DATABASE_URL:',
  '  temporal           the namespace answers',
  '  search-attributes  every turn search attribute is registered',
  "  turn-patches       the turn workflow patches this build's workers know, oldest first, and how many running",
  '                     turns recorded each: a worker of a build without one cannot run those (keep a worker that',
  '                     has it until they end before rolling workers back)',
  '  round-trip         one activity round trip, timed with a probe workflow on a task queue of its own;',
  '                     above 30 ms it warns and names the two server settings that fix it',
  '  database           (when DATABASE_URL is set) every migration of this build is applied; warns when a newer',
  '                     build migrated the database (migrations this build does not know)',
  '  pooling            (then) each connection keeps its server session: fails behind a transaction- or',
  '                     statement-mode pooler (PgBouncer), which the engine cannot run on',
  "  search-collation   (then) PostgreSQL has the ICU collation und-x-icu the console's text search uses; warns",
  '                     when not (a server built without ICU, a database not in UTF8) and says what to do',
  "  search-indexes     (then) the console search's trigram indexes are there, valid and as migrate builds them;",
  '                     warns when not (pg_trgm not offered or not created, an index dropped, left invalid by a',
  '                     failed build, or of another definition: made by hand, or from before a migration): the',
  '                     search then reads whole tables; says what to do (`convengine migrate` builds them)',
  '  deployment         (then) the Temporal namespace and task queue the database is bound to; fails when they are',
  '                     not this namespace and TEMPORAL_TASK_QUEUE (a worker or API here would refuse to start)',
  '  config             (then) the config tables validate; warns when they are refused and a stored snapshot is',
  '                     served instead, fails when none validates or when it is empty (no ce_intent, no',
  '                     ce_response row: nothing was seeded or applied, and every message is refused)',
  '  audit-trail        (then) the size of ce_audit, the oldest idle conversation, the audit policy in effect',
  '  api-tokens         (when API_TOKEN is set) warns when it is the only API token: whoever holds it, a gateway',
  '                     serving end users too, then reaches the operator routes (set OPERATOR_API_TOKEN)',
  '  api-limits         (when one is set, or when it warns) MESSAGE_MAX_CONCURRENT is below the connections an API',
  '                     here holds (API_MAX_CONNECTIONS, or from the open-files limit): warns when not, since a',
  '                     message past it could never arrive to be refused 503 TOO_MANY_MESSAGES',
  'Exit code: 1 when a check fails; warnings fail only with --strict.',
].join('\n');

const OPTIONS = { values: ['address', 'namespace'], flags: ['json', 'strict'], positional: false };

export const doctorCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('doctor', args, OPTIONS);
    if (typeof parsed === 'string') {
      io.err(parsed);
      io.err(`Usage: ${USAGE}`);
      return 2;
    }
    const { options } = parsed;
    const given = addressOption(options);
    if (typeof given === 'string') return usageError(io, given, USAGE);
    const env = loadEnv();
    const address = given.address ?? env.TEMPORAL_ADDRESS;
    const namespace = options.get('namespace')?.at(-1) ?? env.TEMPORAL_NAMESPACE;
    if (!address) {
      io.err('doctor: no Temporal server to check: set TEMPORAL_ADDRESS or pass --address host:port');
      return 2;
    }
    // The probe's worker would otherwise print its lifecycle at INFO between the findings.
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const temporal = configuredTemporal(env, address);
    const findings: Finding[] = await checkTemporal(temporal, namespace);
    if (findings[0]?.level === 'ok') {
      findings.push(await checkTurnPatches(temporal, namespace, env.TEMPORAL_TASK_QUEUE));
      findings.push(
        await checkRoundTrip({
          temporal,
          namespace,
          compression: env.TEMPORAL_GRPC_COMPRESSION,
          workflowBundle: env,
          sealFailureText: withoutFailureText(env),
        })
      );
    }
    if (env.DATABASE_URL) {
      const database = await checkDatabase(env.DATABASE_URL, env.TOOLS_DATABASE_URL);
      findings.push(database);
      if (database.level !== 'fail') {
        const url = env.DATABASE_URL;
        const own = { namespace, taskQueue: env.TEMPORAL_TASK_QUEUE };
        findings.push(await checkPooling(url), await checkSearchCollation(url), await checkSearchIndexes(url));
        findings.push(await checkDeployment(url, own));
        findings.push(await checkConfig(url), await checkAuditTrail(url));
      }
    }
    const tokens = checkApiTokens(env);
    if (tokens) findings.push(tokens);
    const limits = checkApiLimits(env);
    if (limits) findings.push(limits);
    for (const f of findings) {
      if (options.has('json')) outJson(io, f);
      // A finding quotes what it checked (a database's error, a namespace, a config row): --json carries it as written
      // (JSON escapes its controls); a terminal line shows them as code points.
      else io.out(`${f.level.padEnd(4)} ${f.check.padEnd(17)} ${shownText(f.message)}`);
    }
    if (findings.some((f) => f.level === 'fail')) return 1;
    return options.has('strict') && findings.some((f) => f.level === 'warn') ? 1 : 0;
  },
};
