import { seedPacks } from '../../db/seed';
import { startDemoLlm } from '../../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../demo/tool-server';
import type { ScriptedLlm } from '../../scripted-llm';
import { createTestDatabase, type TestDatabase } from './database';
import { getSetUpTestTemporal, type TestTemporal } from './temporal';

/** What a worker and an API of the demo run against in a test: each part's stop is pushed onto `stops` as it starts. */
export interface DemoDependencies {
  tdb: TestDatabase;
  llm: ScriptedLlm;
  tools: DemoToolServer;
  temporal: TestTemporal;
  /** The environment the demo tools read (a worker's toolEnv). */
  toolEnv: Record<string, string>;
}

/** A test database seeded with `packs`, the recorded model, the demo tool server and the test Temporal server. */
export async function startDemoDependencies(
  packs: string[],
  stops: (() => Promise<unknown>)[]
): Promise<DemoDependencies> {
  const tdb = await createTestDatabase();
  stops.push(() => tdb.drop());
  await seedPacks(tdb.db, packs);
  const llm = await startDemoLlm();
  stops.push(() => llm.stop());
  const tools = await startDemoToolServer();
  stops.push(() => tools.stop());
  const temporal = await getSetUpTestTemporal();
  stops.push(() => temporal.stop());
  const toolEnv = { CONVENGINE_TOOL_DEMO_URL: tools.baseUrl, CONVENGINE_TOOL_DEMO_API_KEY: DEMO_API_KEY };
  return { tdb, llm, tools, temporal, toolEnv };
}
