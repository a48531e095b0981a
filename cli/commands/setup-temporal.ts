import type { Connection } from '@temporalio/client';
import { loadEnv } from '../../config/env';
import { connectTemporalClient, isTemporalUnreachable } from '../../config/temporal-client';
import {
  configuredTemporal,
  describeTemporal,
  unreachable,
  type TemporalConnectionSettings,
} from '../../config/temporal-connection';
import { parseCommandArgs, usageError, type CliCommand } from '../command';
import { errorChain } from '../error-chain';
import { setupTemporalNamespace } from '../temporal/setup';

/** How long it waits for a cluster that is not up yet, by default: compose starts it next to the cluster. */
const WAIT_DEFAULT_SECONDS = 120;
const WAIT_MAX_SECONDS = 3_600;

/**
 * Temporal sets no maximum retention since server 1.18 (docs.temporal.io, Retention Period; Cloud allows 1 to 90
 * days), but the request carries it as a protobuf Duration, at most 10,000 years: past that the SDK failed after
 * connecting (`Invalid duration string: '1e+300 days'`).
 */
const RETENTION_MAX_DAYS = 3_652_500;

/**
 * Whether waiting may help: the cluster is not up yet. Any other refusal (UNIMPLEMENTED,
 * UNAUTHENTICATED, PERMISSION_DENIED, ...) is the same in two minutes, so it fails at once.
 */
const stillStarting = isTemporalUnreachable;

/** A connection whose health check answered, or the reason there is none. */
async function connectHealthy(temporal: TemporalConnectionSettings): Promise<Connection> {
  const connection = await connectTemporalClient(temporal, { connectTimeout: 5_000 });
  try {
    await connection.healthService.check({});
    return connection;
  } catch (err) {
    await connection.close();
    throw err;
  }
}

/** Connects, retrying while the cluster is still starting (compose starts this job next to it). */
async function connectWhenUp(
  temporal: TemporalConnectionSettings,
  waitSeconds: number,
  log: (line: string) => void
): Promise<Connection> {
  const deadline = Date.now() + waitSeconds * 1_000;
  for (;;) {
    try {
      return await connectHealthy(temporal);
    } catch (err) {
      if (!stillStarting(err) || Date.now() > deadline) throw unreachable(temporal, err);
      log(`waiting for Temporal at ${describeTemporal(temporal)}…`);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    }
  }
}

const OPTIONS = { values: ['retention-days', 'wait-seconds'], positional: false };

/**
 * An option's whole number from `min` to `max` (`fallback` when absent), or the usage error: decimal digits only, as
 * Number() also took `1e9`, `0x10` and `1e300`.
 */
function wholeNumberOption(options: Map<string, string[]>, name: string, range: [number, number, number]) {
  const [fallback, min, max] = range;
  const text = options.get(name)?.at(-1);
  if (text === undefined) return fallback;
  const value = /^[0-9]{1,9}$/.test(text) ? Number(text) : NaN;
  return value >= min && value <= max
    ? value
    : `--${name} expects a whole number from ${min} to ${max} (got "${text}")`;
}

/** `--retention-days` and `--wait-seconds`, or the usage error. */
function optionsOf(args: string[]): { retentionDays: number; waitSeconds: number } | string {
  const parsed = parseCommandArgs('setup-temporal', args, OPTIONS);
  if (typeof parsed === 'string') return parsed;
  const retentionDays = wholeNumberOption(parsed.options, 'retention-days', [30, 1, RETENTION_MAX_DAYS]);
  const waitSeconds = wholeNumberOption(parsed.options, 'wait-seconds', [WAIT_DEFAULT_SECONDS, 0, WAIT_MAX_SECONDS]);
  if (typeof retentionDays === 'string') return retentionDays;
  return typeof waitSeconds === 'string' ? waitSeconds : { retentionDays, waitSeconds };
}

export const setupTemporalCommand: CliCommand = {
  usage: [
    `convengine setup-temporal [--retention-days 30] [--wait-seconds ${WAIT_DEFAULT_SECONDS}]`,
    '',
    'On TEMPORAL_ADDRESS: creates TEMPORAL_NAMESPACE when it does not exist (with that retention for',
    `closed turns, 1 to ${RETENTION_MAX_DAYS} days) and registers every search attribute the turn workflow`,
    'upserts that it lacks. docker-compose runs it as the temporal-bootstrap job; run it once for any other cluster.',
    '',
    `While Temporal cannot be reached it retries every few seconds for --wait-seconds (default ${WAIT_DEFAULT_SECONDS},`,
    '0: one try), then exits 1; a refusal that waiting cannot change (a rejected API key) exits 1 at once.',
  ].join('\n'),
  async run(args, io) {
    const given = optionsOf(args);
    if (typeof given === 'string') return usageError(io, given, setupTemporalCommand.usage);
    const { retentionDays, waitSeconds } = given;
    const env = loadEnv();
    const temporal = configuredTemporal(env);
    let connection: Connection;
    try {
      connection = await connectWhenUp(temporal, waitSeconds, io.err);
    } catch (err) {
      io.err(`setup-temporal: ${errorChain(err)}`);
      return 1;
    }
    try {
      await setupTemporalNamespace(connection, { namespace: env.TEMPORAL_NAMESPACE, retentionDays, log: io.out });
      io.out(`namespace ${env.TEMPORAL_NAMESPACE} ready on ${describeTemporal(temporal)}`);
      return 0;
    } catch (err) {
      io.err(`setup-temporal: ${describeTemporal(temporal)}: ${errorChain(err)}`);
      return 1;
    } finally {
      await connection.close();
    }
  },
};
