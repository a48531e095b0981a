import { temporal } from '@temporalio/proto';
import type { WorkflowHarness } from './workflow-harness';

const HistoryProto = temporal.api.history.v1.History;

/**
 * A turn's history as Temporal stores it and `temporal workflow show` reads it: the bare service call, no codec. Its
 * bytes as latin1 text, so a test can tell whether a marker it wrote is stored in clear.
 */
export async function storedHistory(h: WorkflowHarness, workflowId: string): Promise<string> {
  const raw = await h.client.workflowService.getWorkflowExecutionHistory({
    namespace: h.temporal.namespace,
    execution: { workflowId },
  });
  return Buffer.from(HistoryProto.encode(raw.history ?? {}).finish()).toString('latin1');
}
