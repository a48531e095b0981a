import { Pool } from 'pg';
import { systemClock, type ActivityDeps } from '../../activities/deps';
import { configuredAuditGate } from '../../activities/runtime/audit-gate';
import { createToolDeps } from '../../activities/tools/deps';
import { loadSqlParser } from '../../activities/tools/sql/parser';
import { createTaskRegistry } from '../../core/tasks/registry';

/** Activity dependencies for steps that read config and write audit rows only: no model, no tools. */
export async function bookkeepingDeps(
  db: ActivityDeps['db'],
  configStore: ActivityDeps['configStore']
): Promise<ActivityDeps> {
  return {
    db,
    configStore,
    llm: { generateText: async () => '', generateJson: async () => ({ ok: false, raw: '', error: 'unused' }) },
    clock: systemClock,
    audit: configuredAuditGate(systemClock),
    tasks: createTaskRegistry(),
    // Never used by these steps; the pool connects only on a query.
    tools: createToolDeps({ sqlPool: new Pool(), sqlParser: await loadSqlParser(), env: {} }),
  };
}
