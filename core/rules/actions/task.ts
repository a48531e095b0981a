import { errorMessage } from '../../errors';
import type { JsonObject } from '../../json';
import { parseTaskRef } from '../../tasks/registry';
import type { ActionContext } from './context';

/**
 * SET_TASK `task:method1,method2`: runs consumer task methods on the working session. Failures are
 * recorded in the audit and otherwise ignored (a task cannot break rule evaluation).
 */
export async function setTask(ctx: ActionContext): Promise<void> {
  const ref = parseTaskRef(ctx.rule.actionValue ?? '');
  if (!ref) return;
  const results: JsonObject[] = [];
  for (const method of ref.methods) {
    const fn = ctx.tasks?.resolve(ref.taskName, method);
    if (!fn) {
      results.push({ method, status: 'MISSING' });
      continue;
    }
    try {
      const result = await fn({ session: ctx.scope.session, rule: ctx.rule, taskName: ref.taskName, method });
      results.push({ method, status: 'OK', result: result ?? null });
    } catch (err) {
      results.push({ method, status: 'FAILED', error: errorMessage(err) });
    }
  }
  ctx.scope.audit('SET_TASK', { ruleId: ctx.rule.ruleId, taskName: ref.taskName, methods: ref.methods, results });
}
