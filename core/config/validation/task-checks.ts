import type { ValidationContext } from './context';

/**
 * A task named by a row runs consumer code that config cannot supply: tasks are registered in code, with
 * the worker that runs turns (core/tasks/registry.ts), and validation cannot see that registry. Each row
 * naming one is a warning that says so, and what a turn does without it.
 */
export function warnTaskInCode(
  ctx: ValidationContext,
  where: { table: string; id: number },
  task: { name: string; methods: readonly string[]; withoutIt: string }
): void {
  const methods = task.methods.map((m) => `${task.name}.${m}`).join(', ');
  ctx.sink.warning(
    where.table,
    where.id,
    `runs task ${methods}, which is registered in code, not config: make sure the worker that runs turns ` +
      `registers it (\`convengine start\` and \`convengine worker\` register no tasks; see the Tasks section ` +
      `of docs/config-reference.md), or ${task.withoutIt}`
  );
}
