import type { Env } from '../../config/env';
import { startEmbeddedPostgres, type LaunchEvents } from '../../db/embedded';
import { noStop, type Part } from './types';

/** DATABASE_URL, or the embedded PostgreSQL server (a child process; this module loads nothing heavy). */
export async function databasePart(env: Env, home: string, events: LaunchEvents = {}): Promise<Part<string>> {
  if (env.DATABASE_URL) return { value: env.DATABASE_URL, embedded: null, stop: noStop };
  const pg = await startEmbeddedPostgres(home, events);
  return {
    value: pg.url,
    embedded: `PostgreSQL: server at ${pg.maskedUrl} (data in ${pg.dataDir}, password in ${pg.passwordFile})`,
    stop: () => pg.stop(),
    ended: pg.exited.then((how) => `the embedded PostgreSQL server ${how} (its log: ${pg.logFile})`),
  };
}
