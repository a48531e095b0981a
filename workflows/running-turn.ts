import type { Session } from '../core/session';
import type { StepInput, StepOutput } from '../core/turn/contracts';
import type { StepName } from '../core/turn/steps';
import type { TurnState } from './turn-state';
import type { TurnVersions } from './turn-versions';

/**
 * The turn as conversationTurnV2's executor runs it (turn-executor-v2.ts), for the paths it hands a tool call
 * to: the approval (tool-approval.ts), the operator hold (tool-hold.ts) and the direct tool (direct-tool-call.ts).
 */
export interface RunningTurn {
  readonly state: TurnState;
  readonly versions: TurnVersions;
  /** The session as the last step answered it; null before any did. */
  session(): Session | null;
  /** Runs a step as the executor does: its activity kind and options from the step table, `options` over them. */
  run(name: StepName, input: StepInput, summary: string, options?: object): Promise<StepOutput>;
}
