import { readConfigRows } from '../../db/config/load';
import { configServing } from '../../db/config/stored-fallback';
import { loadEngineValidation } from '../../activities/runtime/config-validation';
import { refusedConfigWarning } from '../../observability/prerequisite-checks';
import { CONFIG_EMPTY_WARNING } from '../../core/config/empty';
import { auditTrailStats } from '../../db/repositories/audit-trail-stats';
import { readAuditPolicy } from '../../core/audit/policy';
import { rawDatabaseError } from '../database-failure';
import { rawErrorChain } from '../error-chain';
import { openDoctorDatabase, type Finding } from './finding';

/**
 * Whether the tables validate under this build's rules, and if not, what every process serves instead: a stored
 * snapshot (turns go on, on that version: warn) or nothing (every new turn fails CONFIG_INVALID: fail). A config that
 * validates but is empty (nothing loaded: every message is refused CONFIG_EMPTY) fails too.
 */
export async function checkConfig(databaseUrl: string): Promise<Finding> {
  const handle = openDoctorDatabase(databaseUrl);
  try {
    const serving = await configServing(handle.db, { validation: await loadEngineValidation() });
    const count = serving.violations.length;
    if (count === 0 && serving.empty) return { check: 'config', level: 'fail', message: CONFIG_EMPTY_WARNING };
    if (count === 0) return { check: 'config', level: 'ok', message: `config ${serving.version} validates` };
    if (serving.fallbackVersion !== null) {
      return {
        check: 'config',
        level: 'warn',
        message: `${refusedConfigWarning(serving.fallbackVersion)} (${count} violation(s))`,
      };
    }
    return {
      check: 'config',
      level: 'fail',
      message: `the current config is refused (${count} violation(s)) and no stored snapshot validates: every new turn fails CONFIG_INVALID; run convengine validate-config`,
    };
  } catch (err) {
    return { check: 'config', level: 'fail', message: `cannot read the config: ${rawDatabaseError(handle.pool, err)}` };
  } finally {
    await handle.close();
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How large the audit trail is, how old its oldest idle conversation, and the audit policy the current
 * config sets: what an operator needs to decide on `conversations prune` and a quieter policy. Warns only
 * when the policy rows do not parse (the workers would refuse the config).
 */
export async function checkAuditTrail(databaseUrl: string): Promise<Finding> {
  const handle = openDoctorDatabase(databaseUrl);
  try {
    const stats = await auditTrailStats(handle.db);
    const configs = (await readConfigRows(handle.db)).configs;
    const policyRows = configs.filter((r) => r.enabled && r.configType.toUpperCase() === 'AUDITSERVICE');
    const mib = (stats.bytes / (1024 * 1024)).toFixed(1);
    const rows = stats.rows === null ? 'rows not yet estimated' : `~${stats.rows.toLocaleString('en-US')} rows`;
    const idle =
      stats.oldestIdleMs === null
        ? 'no conversation'
        : `oldest conversation idle ${(stats.oldestIdleMs / DAY_MS).toFixed(1)} d`;
    let policy: string;
    try {
      const p = readAuditPolicy(configs);
      policy = p.enabled ? `LEVEL=${p.level}${p.persistMeta ? '' : ', PERSIST_META=false'}` : 'ENABLED=false';
      const filters = policyRows.filter((r) => /CLUDE_|RATE_LIMIT_ENABLED/i.test(r.configKey)).length;
      if (filters > 0) policy += `, ${filters} filter row(s)`;
    } catch (err) {
      return { check: 'audit-trail', level: 'warn', message: `the audit policy does not parse: ${rawErrorChain(err)}` };
    }
    return {
      check: 'audit-trail',
      level: 'ok',
      message:
        `ce_audit ${mib} MiB, ${rows}; ${idle}; audit policy ${policy}. ` +
        'Idle conversations go with `convengine conversations prune --older-than <age>` (docs/runbook.md section 8)',
    };
  } catch (err) {
    return {
      check: 'audit-trail',
      level: 'fail',
      message: `cannot read the audit trail: ${rawDatabaseError(handle.pool, err)}`,
    };
  } finally {
    await handle.close();
  }
}
