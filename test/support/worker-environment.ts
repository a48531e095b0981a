import { startDevServer, type DevServer } from '../../devserver';
import { createTestDatabase, type TestDatabase } from './database';

/**
 * A dev server and a test database for the describe block it is called in (started before its tests, stopped and
 * dropped after): the environment a `convengine worker` child needs, JSON logs and a placeholder model key.
 */
export function workerEnvironment(): () => Record<string, string> {
  let server: DevServer;
  let db: TestDatabase;
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
    await server?.stop();
  });
  return () => ({
    TEMPORAL_ADDRESS: server.address,
    DATABASE_URL: db.url,
    ANTHROPIC_API_KEY: 'sk-test',
    LOG_FORMAT: 'json',
  });
}
