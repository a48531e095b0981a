import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { missingTurnSearchAttributes } from '../../config/turn-search-attributes';

const GRPC_NOT_FOUND = 5;
const GRPC_ALREADY_EXISTS = 6;
const GRPC_UNAVAILABLE = 14;

export interface SetupOptions {
  namespace: string;
  /** Retention of closed runs when the namespace is created (existing namespaces are left alone). */
  retentionDays?: number;
  /** How long to keep trying while a new namespace propagates to the frontend's cache. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

function grpcCode(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

async function ensureNamespace(connection: Connection, options: SetupOptions): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace: options.namespace });
    return;
  } catch (err) {
    if (grpcCode(err) !== GRPC_NOT_FOUND) throw err;
  }
  const days = options.retentionDays ?? 30;
  try {
    await connection.workflowService.registerNamespace({
      namespace: options.namespace,
      workflowExecutionRetentionPeriod: msToTs(`${days} days`),
    });
    options.log?.(`created namespace ${options.namespace} (retention ${days} days)`);
  } catch (err) {
    if (grpcCode(err) === GRPC_ALREADY_EXISTS) return;
    throw new Error(`namespace ${options.namespace} does not exist and the server did not create it`, { cause: err });
  }
}

/**
 * Creates the namespace when it is missing and registers every turn search attribute it lacks:
 * what docker-compose's `temporal-bootstrap` job and a new cluster need, from the one list in
 * workflows/search-attributes.ts. Idempotent.
 */
export async function setupTemporalNamespace(connection: Connection, options: SetupOptions): Promise<string[]> {
  await ensureNamespace(connection, options);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    try {
      const missing = await missingTurnSearchAttributes(connection, options.namespace);
      if (Object.keys(missing).length === 0) return [];
      await connection.operatorService.addSearchAttributes({ namespace: options.namespace, searchAttributes: missing });
      options.log?.(`registered search attributes ${Object.keys(missing).join(', ')} on ${options.namespace}`);
      return Object.keys(missing);
    } catch (err) {
      // A namespace created a moment ago is unknown to the frontend until its cache refreshes.
      const retryable = [GRPC_NOT_FOUND, GRPC_ALREADY_EXISTS, GRPC_UNAVAILABLE].includes(grpcCode(err) ?? 0);
      if (!retryable || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
