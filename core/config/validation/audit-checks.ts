import { admitsAudit, readAuditPolicy, type AuditPolicy } from '../../audit/policy';
import type { ValidationContext } from './context';

/**
 * What an audit policy (ce_config AuditService.*) takes from the features that read the trail back:
 * accepted, since an author may want exactly that, but said, since it is easy to miss. Probed as the
 * first turn of a conversation writes its rows: no intent yet.
 */
const READERS: { stage: string; loses: string }[] = [
  { stage: 'USER_INPUT', loses: 'the what-if replay skips turns without a USER_INPUT row' },
  { stage: 'STEP_EXIT', loses: 'the trace view shows no step durations (it reads the STEP_EXIT rows)' },
];

export function checkAuditPolicy(ctx: ValidationContext): void {
  const rows = ctx.rows.configs.filter((r) => r.enabled && r.configType.toUpperCase() === 'AUDITSERVICE');
  if (rows.length === 0) return;
  let policy: AuditPolicy;
  try {
    policy = readAuditPolicy(ctx.rows.configs);
  } catch {
    return; // A value that does not parse is a violation of its own (checkConfigRows).
  }
  const rowOf = (...keys: string[]) =>
    rows.find((r) => keys.includes(r.configKey.toUpperCase()))?.configId ?? rows[0]?.configId ?? 'AuditService';
  const filters = ['ENABLED', 'LEVEL', 'INCLUDE_STAGES', 'EXCLUDE_STAGES', 'INCLUDE_INTENTS', 'EXCLUDE_INTENTS'];
  for (const { stage, loses } of READERS) {
    if (!admitsAudit(policy, stage, null))
      ctx.sink.warning('ce_config', rowOf(...filters), `the audit policy leaves out ${stage} rows: ${loses}`);
  }
  if (!policy.persistMeta) {
    ctx.sink.warning(
      'ce_config',
      rowOf('PERSIST_META'),
      'AuditService.PERSIST_META=false: the what-if replay gets no input params for turns recorded so, ' +
        'and no intent or state for failed ones'
    );
  }
}
