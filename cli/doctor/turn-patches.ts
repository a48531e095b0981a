import { Client } from '@temporalio/client';
import { connectTemporalClient } from '../../config/temporal-client';
import type { TemporalConnectionSettings } from '../../config/temporal-connection';
import { TURN_PATCHES } from '../../workflows/turn-versions';
import { rawErrorChain } from '../error-chain';
import type { Finding } from './finding';

/** The running turns of `taskQueue` that recorded `patch`: the turns only a worker that knows it can run. */
export const runningWithPatchQuery = (taskQueue: string, patch: string): string =>
  `TaskQueue="${taskQueue}" AND ExecutionStatus="Running" AND TemporalChangeVersion="${patch}"`;

/**
 * `convengine doctor`'s turn-patches finding: the turn workflow patches this build's workers know (TURN_PATCHES, oldest
 * first, as their identity counts them: `patches=<n>`), and how many running turns recorded each. A worker of a build
 * that lacks a patch fails every workflow task of a turn that recorded it, so a rollback keeps a worker that has it
 * until those turns end (docs/operations.md, "Upgrades and rollbacks").
 */
export async function checkTurnPatches(
  temporal: TemporalConnectionSettings,
  namespace: string,
  taskQueue: string
): Promise<Finding> {
  const known = `this build's workers know ${TURN_PATCHES.length} turn workflow patches (identity patches=${TURN_PATCHES.length}), oldest first: ${TURN_PATCHES.join(', ')}`;
  try {
    const connection = await connectTemporalClient(temporal, { connectTimeout: 5_000 });
    try {
      const client = new Client({ connection, namespace });
      const running: string[] = [];
      for (const patch of TURN_PATCHES) {
        const { count } = await client.workflow.count(runningWithPatchQuery(taskQueue, patch));
        if (count > 0) running.push(`${patch} ${count}`);
      }
      const turns = running.length > 0 ? running.join(', ') : 'none';
      return {
        check: 'turn-patches',
        level: 'ok',
        message: `${known}; running turns on ${taskQueue} that recorded them: ${turns}`,
      };
    } finally {
      await connection.close();
    }
  } catch (err) {
    return {
      check: 'turn-patches',
      level: 'warn',
      message: `${known}; cannot count the running turns that recorded them: ${rawErrorChain(err)}`,
    };
  }
}
