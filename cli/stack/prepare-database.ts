import { migrate, migrationReportLines, MIGRATIONS_DIR } from '../../db/migrate';
import { migrationFailure } from '../database-failure';
import { bindOwnDeployment, type Deployment } from '../../db/deployment';
import { openDatabase } from '../../db/pool';
import { MAINTENANCE_SESSION } from '../../db/session-settings';
import { applyConfigRows } from '../../db/config/apply';
import { overlayConfigRows } from '../../db/config/yaml-tree';
import { packRowUpgradeLines, resolveSeedPacks, seedPacks } from '../../db/seed';
import { packConfigRows } from '../../db/seed/merge';
import type { StackConfig } from './types';

/**
 * Migrates (logging what `convengine migrate` prints), binds the database to the stack's deployment (a database bound
 * to another fails here, before anything is seeded: db/deployment.ts), seeds the chosen packs (logging the rows an
 * earlier pack version shipped: brought up to date or kept as edited), then, with a YAML tree, makes the config exactly
 * the packs' rows plus the tree's (the tree wins on equal primary keys), validated as a whole. With TOOLS_DATABASE_URL
 * set (`toolsDatabaseUrl`), its login is the SQL tools role, which keeps its password.
 */
export async function prepareDatabase(
  url: string,
  config: StackConfig = { packs: ['all'] },
  how: {
    toolsDatabaseUrl?: string | undefined;
    log?: (line: string) => void;
    lockWaitMs?: number;
    deployment?: Deployment;
  } = {}
): Promise<void> {
  const { toolsDatabaseUrl, log = () => undefined } = how;
  const handle = openDatabase(url, { max: 2, application_name: 'convengine-migrate' }, MAINTENANCE_SESSION);
  const lockWait = { log, ...(how.lockWaitMs !== undefined ? { timeoutMs: how.lockWaitMs } : {}) };
  try {
    const migrated = await migrate(handle.pool, MIGRATIONS_DIR, { toolsDatabaseUrl, lockWait }).catch(
      (err: unknown) => {
        throw new Error(`migration failed: ${migrationFailure(handle.pool, err)}`, { cause: err });
      }
    );
    // Said as `convengine migrate` says it: a start on an existing database may apply a release's migrations.
    for (const line of migrationReportLines(migrated)) log(line);
    if (how.deployment) await bindOwnDeployment(handle.pool, how.deployment);
    if (config.packs.length > 0) {
      const report = await seedPacks(handle.db, config.packs);
      for (const line of packRowUpgradeLines(report)) log(`seed packs: ${line}`);
    }
    if (config.rows) {
      const packRows = packConfigRows(config.packs.length > 0 ? resolveSeedPacks(config.packs) : []);
      await applyConfigRows(handle.db, overlayConfigRows(packRows, config.rows));
    }
  } finally {
    await handle.close();
  }
}
