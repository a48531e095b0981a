import type { Env } from '../config/env';
import { systemClock, type ActivityDeps } from '../activities/deps';
import { createLlmClientFromEnv } from '../activities/llm/from-env';
import { createToolDeps } from '../activities/tools/deps';
import { createTaskRegistry, type TaskTable } from '../core/tasks/registry';
import { createConfigStore } from '../db/config/store';
import { openDatabase } from '../db/pool';

export interface WorkerDepsOptions {
  databaseUrl: string;
  /** Consumer task handlers for SET_TASK rules and pending actions. */
  tasks?: TaskTable;
  /** Environment tool rows may read (`CONVENGINE_TOOL_*`, auth secrets). */
  toolEnv?: Readonly<Record<string, string | undefined>>;
}

export interface WorkerDeps {
  deps: ActivityDeps;
  close(): Promise<void>;
}

/** The one place activity dependencies are built from configuration (composition root). */
export function buildWorkerDeps(env: Env, options: WorkerDepsOptions): WorkerDeps {
  const handle = openDatabase(options.databaseUrl, { max: 20 });
  const tools = createToolDeps({
    appPool: handle.pool,
    ...(env.TOOLS_DATABASE_URL ? { toolsDatabaseUrl: env.TOOLS_DATABASE_URL } : {}),
    env: options.toolEnv ?? process.env,
  });
  const deps: ActivityDeps = {
    db: handle.db,
    configStore: createConfigStore(handle.db),
    llm: createLlmClientFromEnv(env, handle.db),
    clock: systemClock,
    tasks: createTaskRegistry(options.tasks ?? {}),
    tools,
  };
  return {
    deps,
    async close() {
      if (tools.sql.dedicatedRole) await tools.sql.pool.end();
      await handle.close();
    },
  };
}
