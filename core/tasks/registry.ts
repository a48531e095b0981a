import type { Json } from '../json';
import type { RuleRow } from '../config/types';
import type { Session } from '../session';

/**
 * Consumer-provided task code run by SET_TASK rules and pending actions (the Java engine's
 * CeRuleTask / CeTask beans). A method receives the step's working session and may change it in
 * place; its return value is the task result (pending actions treat null/undefined as failure).
 */
export type TaskMethod = (invocation: TaskInvocation) => Json | undefined | Promise<Json | undefined>;

export interface TaskInvocation {
  session: Session;
  /** The SET_TASK rule, or null for a pending action. */
  rule: RuleRow | null;
  taskName: string;
  method: string;
}

export interface TaskRegistry {
  resolve(taskName: string, method: string): TaskMethod | undefined;
}

export type TaskTable = Record<string, Record<string, TaskMethod>>;

/** A registry over a plain table `{ taskName: { method: fn } }`; names match case-insensitively. */
export function createTaskRegistry(table: TaskTable = {}): TaskRegistry {
  const lower = new Map<string, Map<string, TaskMethod>>();
  for (const [name, methods] of Object.entries(table)) {
    lower.set(name.toLowerCase(), new Map(Object.entries(methods).map(([m, fn]) => [m.toLowerCase(), fn])));
  }
  return {
    resolve: (taskName, method) => lower.get(taskName.trim().toLowerCase())?.get(method.trim().toLowerCase()),
  };
}

/** Parses `task:method1,method2` (the SET_TASK action value and ce_pending_action bean/methods). */
export function parseTaskRef(value: string): { taskName: string; methods: string[] } | null {
  const [name, methods] = value.split(':', 2);
  const taskName = (name ?? '').trim();
  if (taskName === '') return null;
  const list = (methods ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  return { taskName, methods: list.length > 0 ? list : ['execute'] };
}
