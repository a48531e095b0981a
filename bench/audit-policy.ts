import { setTimeout as sleep } from 'node:timers/promises';
import type { Row } from './table';
import { demoMix, formatMs, inProcess, offScriptCount, percentile, postgresCpuMs, runMix, turnsOf } from './turns';
import type { BenchStack } from './stack';

/**
 * What the audit policy (ce_config `AuditService.*`) saves per turn: the same in-process demo turns
 * under the default policy and under quieter ones, each measured by the rows and bytes it leaves in
 * ce_audit and the PostgreSQL CPU it costs. In process, because the audit writes are the same
 * statements on both sides; the durable side pays them in its worker the same way.
 */
const POLICIES: { name: string; settings: Record<string, string> }[] = [
  { name: 'default (ALL, with _meta)', settings: {} },
  { name: 'PERSIST_META=false', settings: { PERSIST_META: 'false' } },
  { name: 'LEVEL=STANDARD', settings: { LEVEL: 'STANDARD' } },
  { name: 'LEVEL=STANDARD, PERSIST_META=false', settings: { LEVEL: 'STANDARD', PERSIST_META: 'false' } },
];

const CONVERSATIONS = 20;
/** Longer than the config store's staleness check (200 ms), so the next turn pins the new version. */
const CONFIG_SETTLE_MS = 500;

interface PolicyRun {
  p50: number;
  rowsPerTurn: number;
  kibPerTurn: number;
  postgresMsPerTurn: number;
  offScript: number;
}

/** Replaces the stack's AuditService.* rows; the worker's and this process's config stores see them within 200 ms. */
export async function applyAuditPolicy(stack: BenchStack, settings: Record<string, string>): Promise<void> {
  await stack.tdb.pool.query(`DELETE FROM ce_config WHERE config_type = 'AuditService'`);
  for (const [key, value] of Object.entries(settings)) {
    await stack.tdb.pool.query(
      `INSERT INTO ce_config (config_type, config_key, config_value) VALUES ('AuditService', $1, $2)`,
      [key, value]
    );
  }
  await sleep(CONFIG_SETTLE_MS);
}

async function runPolicy(stack: BenchStack): Promise<PolicyRun> {
  const mix = demoMix(CONVERSATIONS);
  const cpuBefore = postgresCpuMs();
  const { samples } = await runMix(mix, inProcess(stack), 1, Date.now() + 120_000);
  const postgresMs = postgresCpuMs() - cpuBefore;
  const conversations = [...new Set(samples.map((s) => s.conversationId))];
  const { rows } = await stack.tdb.pool.query<{ rows: string; bytes: string | null }>(
    `SELECT count(*) AS rows, sum(pg_column_size(payload_json)) AS bytes FROM ce_audit WHERE conversation_id = ANY($1::uuid[])`,
    [conversations]
  );
  const turns = Math.max(1, samples.length);
  return {
    p50: percentile(
      samples.map((s) => s.ms),
      50
    ),
    rowsPerTurn: Number(rows[0]?.rows ?? 0) / turns,
    kibPerTurn: Number(rows[0]?.bytes ?? 0) / 1024 / turns,
    postgresMsPerTurn: postgresMs / turns,
    offScript: offScriptCount(samples),
  };
}

/**
 * BENCH_AUDIT_POLICY (`LEVEL=STANDARD,PERSIST_META=false`): the audit policy the durable rows run under,
 * to see what a quieter trail buys a durable turn. Unset: the default policy.
 */
export function benchAuditPolicy(raw = process.env['BENCH_AUDIT_POLICY']): Record<string, string> {
  if (!raw) return {};
  const settings: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    const match = /^\s*([A-Z_]+)=(.+?)\s*$/i.exec(pair);
    if (!match) throw new Error(`BENCH_AUDIT_POLICY: "${pair}" is not KEY=VALUE`);
    settings[(match[1] as string).toUpperCase()] = match[2] as string;
  }
  return settings;
}

export async function auditPolicyRows(stack: BenchStack): Promise<Row[]> {
  const rows: Row[] = [];
  try {
    for (const policy of POLICIES) {
      await applyAuditPolicy(stack, policy.settings);
      const run = await runPolicy(stack);
      rows.push([
        `Audit policy ${policy.name}: rows / payload KiB / PostgreSQL CPU per turn`,
        `${run.rowsPerTurn.toFixed(1)} / ${run.kibPerTurn.toFixed(1)} KiB / ${formatMs(run.postgresMsPerTurn)}`,
        `in process, ${turnsOf(demoMix(CONVERSATIONS))} demo turns one at a time, p50 ${formatMs(run.p50)}; ` +
          `KiB: the payloads as stored (pg_column_size, compressed; row headers and indexes not counted); ${run.offScript} off script`,
      ]);
    }
  } finally {
    await applyAuditPolicy(stack, {});
  }
  return rows;
}
