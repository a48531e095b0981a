import type { ConfigSnapshot, RuleRow } from '../../config/types';
import type { JsonObject } from '../../json';
import type { StepScope } from '../../step/scope';
import type { TaskRegistry } from '../../tasks/registry';
import type { RulePhase } from '../phase';

/** What an action sees: the working scope (session + audit sink), its rule and the environment. */
export interface ActionContext {
  scope: StepScope;
  rule: RuleRow;
  /** The phase being evaluated: what of the session is this turn's depends on it (short-circuit.ts). */
  phase: RulePhase;
  snapshot: ConfigSnapshot;
  tasks: TaskRegistry | undefined;
  /** Context restricted to the resolved schema, computed for the current session. */
  schemaJson: () => JsonObject;
  facts: () => JsonObject;
  now: string | undefined;
}

export type RuleAction = (ctx: ActionContext) => Promise<void> | void;
