import { errorMessage } from '../../core/errors';
import type { JsonObject } from '../../core/json';
import { P } from '../../core/params/keys';
import {
  actionRefFromCatalog,
  actionRefFromContext,
  explicitActionKey,
  pendingActionCandidates,
} from '../../core/pending/catalog';
import { runtimeOf } from '../../core/pending/lifecycle';
import { parseTaskRef } from '../../core/tasks/registry';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

function base(ctx: StepContext, decision: string, ref: string | null): JsonObject {
  const s = ctx.scope.session;
  return { policyDecision: decision, pendingActionRef: ref, intent: s.intent, state: s.state, context: s.context };
}

function setResult(ctx: StepContext, result: 'EXECUTED' | 'REJECTED' | 'FAILED'): void {
  const session = ctx.scope.session;
  session.inputParams[P.pendingActionResult] = result;
  if (result === 'FAILED') return;
  const runtime = runtimeOf(session.context);
  runtime['status'] = result;
  session.context['pending_action_runtime'] = runtime;
  session.inputParams['pending_action_runtime_status'] = result;
}

/** Runs every method of the task; a missing method, an exception or a null result is a failure. */
async function runTask(ctx: StepContext, ref: string): Promise<string | null> {
  const task = parseTaskRef(ref);
  if (!task) return 'invalid pending action reference';
  for (const method of task.methods) {
    const fn = ctx.deps.tasks.resolve(task.taskName, method);
    if (!fn) return `task ${task.taskName}.${method} is not registered`;
    try {
      const result = await fn({ session: ctx.scope.session, rule: null, taskName: task.taskName, method });
      if (result === undefined || result === null) return 'task execution returned null';
    } catch (err) {
      return `task execution failed: ${errorMessage(err)}`;
    }
  }
  return null;
}

/** Executes or rejects the pending action the interaction policy decided on (§5.8). */
export async function pendingAction(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  const p = session.inputParams;
  const decision = String(p[P.policyDecision] ?? 'RECLASSIFY_INTENT');
  if (p[P.skipPendingActionExecution] === true || p[P.guardrailBlocked] === true) {
    ctx.scope.audit('PENDING_ACTION_SKIPPED', {
      ...base(ctx, decision, null),
      reason: 'pending action skipped by guardrail',
    });
    return ctx.scope.output();
  }
  if (decision !== 'EXECUTE_PENDING_ACTION' && decision !== 'REJECT_PENDING_ACTION') return ctx.scope.output();
  const key = explicitActionKey(p, session.context);
  const fromCatalog = actionRefFromCatalog(
    pendingActionCandidates(ctx.snapshot, session.intent, session.state, key),
    key !== null
  );
  const ref =
    fromCatalog ?? actionRefFromContext(session.context['pending_action'] ?? session.context['pendingAction']);
  if (!ref) {
    ctx.scope.audit('PENDING_ACTION_SKIPPED', {
      ...base(ctx, decision, null),
      actionKey: key,
      reason: 'pending action reference not found or ambiguous',
    });
    return ctx.scope.output();
  }
  if (decision === 'REJECT_PENDING_ACTION') {
    setResult(ctx, 'REJECTED');
    ctx.scope.audit('PENDING_ACTION_REJECTED', { ...base(ctx, decision, ref), pendingActionResult: 'REJECTED' });
    return ctx.scope.output();
  }
  const failure = await runTask(ctx, ref);
  if (failure) {
    setResult(ctx, 'FAILED');
    ctx.scope.audit('PENDING_ACTION_FAILED', {
      ...base(ctx, decision, ref),
      pendingActionResult: 'FAILED',
      reason: failure,
    });
    return ctx.scope.output();
  }
  setResult(ctx, 'EXECUTED');
  ctx.scope.audit('PENDING_ACTION_EXECUTED', { ...base(ctx, decision, ref), pendingActionResult: 'EXECUTED' });
  return ctx.scope.output();
}
