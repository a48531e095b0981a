import type { Connection } from '@temporalio/client';
import { connectTemporalClient } from '../../config/temporal-client';
import {
  describeTemporal,
  TemporalUnreachableError,
  type TemporalConnectionSettings,
} from '../../config/temporal-connection';
import { probeActivityRoundTrip, type RoundTripProbeOptions } from '../../worker/probe';
import { missingTurnSearchAttributes } from '../../config/turn-search-attributes';
import { rawErrorChain } from '../error-chain';
import { tlsHandshakeProblem } from './tls-handshake';
import type { Finding } from './finding';

/**
 * Above this, a sequential turn's orchestration alone costs seconds: the usual cause is a server at
 * its defaults (docs/benchmarks.md: ~100 ms per round trip at the default transfer-queue poll rate,
 * ~7 ms with the shipped dynamic config).
 */
export const SLOW_ROUND_TRIP_MS = 30;

export const SLOW_SERVER_ADVICE =
  'set history.transferProcessorMaxPollRPS=1000 and system.enableActivityEagerExecution=true in the ' +
  "server's dynamic config (deploy/temporal/dynamicconfig/convengine-sql.yaml); see the README, " +
  '"Run on your own Temporal", and docs/benchmarks.md';

export async function checkTemporal(temporal: TemporalConnectionSettings, namespace: string): Promise<Finding[]> {
  const where = describeTemporal(temporal);
  let connection: Connection;
  try {
    connection = await connectTemporalClient(temporal, { connectTimeout: 5_000 });
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    const handshake = await tlsHandshakeProblem(temporal);
    // The address is already in this message: say only why.
    const reason = rawErrorChain(err instanceof TemporalUnreachableError ? err.cause : err);
    const why = handshake ? `${reason} (${handshake})` : reason;
    return [{ check: 'temporal', level: 'fail', message: `cannot use namespace ${namespace} on ${where}: ${why}` }];
  }
  const findings: Finding[] = [{ check: 'temporal', level: 'ok', message: `namespace ${namespace} on ${where}` }];
  try {
    const missing = Object.keys(await missingTurnSearchAttributes(connection, namespace));
    findings.push(
      missing.length === 0
        ? { check: 'search-attributes', level: 'ok', message: 'every turn search attribute is registered' }
        : {
            check: 'search-attributes',
            level: 'fail',
            message: `missing ${missing.join(', ')}: run \`convengine setup-temporal\``,
          }
    );
  } catch (err) {
    findings.push({ check: 'search-attributes', level: 'fail', message: rawErrorChain(err) });
  } finally {
    await connection.close();
  }
  return findings;
}

export type RoundTripTarget = Pick<
  RoundTripProbeOptions,
  'temporal' | 'namespace' | 'compression' | 'workflowBundle' | 'sealFailureText'
>;

/** Times a chain of empty activities on a private task queue (worker/probe.ts). */
export async function checkRoundTrip(target: RoundTripTarget): Promise<Finding> {
  try {
    const { msPerActivity } = await probeActivityRoundTrip(target);
    const figure = `${msPerActivity.toFixed(1)} ms per activity round trip`;
    if (msPerActivity > SLOW_ROUND_TRIP_MS) {
      return {
        check: 'round-trip',
        level: 'warn',
        msPerActivity,
        message: `${figure} (above ${SLOW_ROUND_TRIP_MS} ms: turns will be slow): ${SLOW_SERVER_ADVICE}`,
      };
    }
    return { check: 'round-trip', level: 'ok', msPerActivity, message: figure };
  } catch (err) {
    return {
      check: 'round-trip',
      level: 'fail',
      message: `the probe workflow did not complete: ${rawErrorChain(err)}`,
    };
  }
}
