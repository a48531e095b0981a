import { openDatabase, type DbHandle } from '../../db/pool';

/**
 * What each of `convengine doctor`'s checks returns (the modules beside this one, by what they check): a finding; none
 * throws, so one broken part never hides what the others would have said. Its message is the text as written, controls
 * and all: --json prints it as it is (JSON escapes them), a terminal line shows them as code points.
 */
export type FindingLevel = 'ok' | 'warn' | 'fail';

export interface Finding {
  check:
    | 'temporal'
    | 'search-attributes'
    | 'turn-patches'
    | 'round-trip'
    | 'database'
    | 'pooling'
    | 'search-collation'
    | 'search-indexes'
    | 'deployment'
    | 'config'
    | 'audit-trail'
    | 'api-tokens'
    | 'api-limits';
  level: FindingLevel;
  message: string;
  /** Measured figure, where the check measures one. */
  msPerActivity?: number;
}

/** The connection each database check opens: one, named, and not waiting past 5 s for a database that hangs. */
export function openDoctorDatabase(databaseUrl: string): DbHandle {
  return openDatabase(databaseUrl, { max: 1, connectionTimeoutMillis: 5_000, application_name: 'convengine-doctor' });
}
