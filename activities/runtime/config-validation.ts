import type { Logger } from '../../observability/logger';
import type { ValidationOptions } from '../../core/config/validation/context';
import type { SqlParser } from '../../core/sql';
import { logConfigRejections } from '../../db/config/rejection-log';
import { createConfigStore, type DatabaseConfigStore } from '../../db/config/store';
import type { Database } from '../../db/pool';
import { toolSqlChecker } from '../tools/sql/guard';
import { loadSqlParser } from '../tools/sql/parser';

/**
 * How every engine process judges config: the rules of core/config/validate plus each sql_template through the SQL
 * guardrail the tool meets at run time. One place, so the API's refresh and validate, `convengine validate-config`
 * and `config apply` cannot accept a config the worker's store refuses.
 */
export function engineValidation(sqlParser: SqlParser): ValidationOptions {
  return { checkToolSql: toolSqlChecker(sqlParser) };
}

export async function loadEngineValidation(): Promise<ValidationOptions> {
  return engineValidation(await loadSqlParser());
}

/** The config store of a worker or an API: engine validation, and refusals logged when there is a logger. */
export function engineConfigStore(
  db: Database,
  validation: ValidationOptions,
  logger?: Pick<Logger, 'warn'>
): DatabaseConfigStore {
  return createConfigStore(db, { validation, ...(logger ? { onRejected: logConfigRejections(logger) } : {}) });
}
