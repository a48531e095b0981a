/** What the workflow's error says: text a workflow's own error may quote, as a check echoing its input. */
export const TASK_FAILURE_TEXT = 'user wrote ORD-7017';

/**
 * A workflow whose task fails: a plain Error from workflow code is no workflow failure but a failed task, which
 * core reports in its own "Failing workflow task" line (test/workflows/sdk-failure-log.test.ts).
 */
export async function failingTask(): Promise<void> {
  throw new Error(`cannot go on: ${TASK_FAILURE_TEXT}`);
}
