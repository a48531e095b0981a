import type { Client } from '@temporalio/client';

export interface RunSummary {
  workflowId: string;
  runId: string;
  status: string;
}

const SETTLE_MS = 15_000;

/**
 * The runs a visibility query finds once none is RUNNING any more. A turn's reply reaches its
 * caller at the turn's milestone, which can come before its workflow closes, and visibility (what
 * `list` reads) trails the closed workflow, more so on the real server. Callers check runs whose
 * turns have all replied, so waiting for them to close is waiting for what is already decided.
 */
export async function closedRuns(client: Client, query: string): Promise<RunSummary[]> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const runs: RunSummary[] = [];
    for await (const w of client.workflow.list({ query })) {
      runs.push({ workflowId: w.workflowId, runId: w.runId, status: w.status.name });
    }
    if (!runs.some((r) => r.status === 'RUNNING') || Date.now() > deadline) return runs;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
