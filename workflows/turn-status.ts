/**
 * Where a turn is, as its progress (turnProgress, awaitMilestone) says. No imports: the API, the CLI and
 * the search attribute values read it without the workflow SDK.
 */
export const TurnStatus = {
  Running: 'RUNNING',
  AwaitingApproval: 'AWAITING_APPROVAL',
  Held: 'HELD',
  Completed: 'COMPLETED',
  Failed: 'FAILED',
} as const;
export type TurnStatus = (typeof TurnStatus)[keyof typeof TurnStatus];
