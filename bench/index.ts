import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { devServerMemoryRows } from './devserver-memory';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { latencyRows, warmUp } from './durability';
import { throughputRows } from './throughput';
import { applyAuditPolicy, auditPolicyRows, benchAuditPolicy } from './audit-policy';
import { benchParallel } from './parallel';
import { benchPlannerLoop } from './planner-loop';
import { benchReadyTime } from './ready-time';
import { benchConfigValidation } from './config-validation';
import { benchRulesEngine } from './rules';
import { benchSqlGuardrail } from './sql-guardrail';
import { installedTemporalCli } from '../cli/temporal/binary';
import { statementRows } from './db-statements';
import { BENCH_TEMPORAL_NAMES, BenchStack, type BenchTemporal } from './stack';
import { markdownTable, type Row } from './table';

/**
 * `npm run bench`: what durability costs, as ONE markdown table. Measures and prints; never fails
 * on a timing. Needs PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test;
 * a fresh database is created and dropped). Every section is bounded in samples and time.
 *
 * BENCH_ONLY=turns,throughput,audit,micro,ready,parallel runs a subset; BENCH_PROFILE_DIR=<dir> makes the worker
 * and dev server processes write V8 CPU profiles there (see bench/README.md).
 */
const SECTIONS = ['turns', 'throughput', 'audit', 'micro', 'ready', 'parallel'] as const;
type Section = (typeof SECTIONS)[number];

function selected(): Set<Section> {
  const only = process.env['BENCH_ONLY'];
  if (!only) return new Set(SECTIONS);
  return new Set(
    only
      .split(',')
      .map((s) => s.trim())
      .filter((s): s is Section => (SECTIONS as readonly string[]).includes(s))
  );
}

/**
 * BENCH_TEMPORAL: the servers the durable side runs on, comma-separated (`devserver`, `cli`,
 * `cli-defaults`); default `devserver`, plus `cli` when `npm run temporal:install` has been run.
 */
function benchServers(): BenchTemporal[] {
  const raw = process.env['BENCH_TEMPORAL'];
  if (!raw) return installedTemporalCli() ? ['devserver', 'cli'] : ['devserver'];
  const names = raw.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !(n in BENCH_TEMPORAL_NAMES));
  if (unknown.length > 0) throw new Error(`BENCH_TEMPORAL: unknown ${unknown.join(', ')}`);
  return names as BenchTemporal[];
}

/**
 * The durable rows on one server; with `audit`, also the audit-policy rows (in process, so measured
 * once, on the first server's stack).
 */
async function durabilityRows(
  sections: Set<Section>,
  temporal: BenchTemporal,
  audit: boolean
): Promise<{ durable: Row[]; audit: Row[] }> {
  if (!sections.has('turns') && !sections.has('throughput') && !audit) return { durable: [], audit: [] };
  const stack = await BenchStack.start({ profileDir: process.env['BENCH_PROFILE_DIR'], temporal });
  try {
    const policy = benchAuditPolicy();
    if (Object.keys(policy).length > 0) await applyAuditPolicy(stack, policy);
    const warmUpRows = await warmUp(stack);
    const durable = [
      ...(sections.has('turns') ? [...(await latencyRows(stack)), ...(await statementRows(stack))] : []),
      ...(sections.has('throughput') ? await throughputRows(stack) : []),
    ];
    return {
      durable: durable.length > 0 ? [...durable, ...warmUpRows] : [],
      audit: audit ? await auditPolicyRows(stack) : [],
    };
  } finally {
    await stack.stop();
  }
}

async function microRows(): Promise<Row[]> {
  const rules = await benchRulesEngine();
  const sql = await benchSqlGuardrail();
  const planner = await benchPlannerLoop();
  const validation = benchConfigValidation();
  const directory = mkdtempSync(join(tmpdir(), 'convengine-bench-devserver-'));
  const devServer = await devServerMemoryRows(directory).finally(() =>
    rmSync(directory, { recursive: true, force: true })
  );
  return [
    [
      'Rules evaluation, 1,000 rules',
      `${rules.msPerPhase.toFixed(1)} ms per phase`,
      `${rules.microsPerRule.toFixed(1)} µs/rule (REGEX / JSON_PATH / EXACT, ${rules.applied} applied, audits included; ${rules.runs} runs)`,
    ],
    [
      'SQL guardrail',
      `${sql.microsPerStatement.toFixed(1)} µs/statement`,
      `${sql.statements}-statement corpus × ${sql.checks / sql.statements}; allowed ${sql.microsPerAllowed.toFixed(1)} µs, refused ${sql.microsPerRefused.toFixed(1)} µs`,
    ],
    [
      'Planner-loop overhead',
      `${planner.microsPerIteration.toFixed(1)} µs/iteration`,
      `driver checks + session updates, activities answered in memory (${planner.turns} loops × ${planner.iterationsPerTurn} iterations)`,
    ],
    [
      `Config validation, ${validation.intents} intents / ${validation.rules.toLocaleString('en')} rules`,
      `${validation.laterMs.toFixed(0)} ms`,
      `validateConfig as a store runs it on a change, JSON Schemas already compiled; ${validation.firstMs.toFixed(0)} ms compiling them (test/support/large-config.ts)`,
    ],
    ...devServer,
  ];
}

async function readyRows(): Promise<Row[]> {
  const r = await benchReadyTime();
  const s = (values: number[]) => values.map((v) => (v / 1000).toFixed(1)).join(' / ');
  const how = 'embedded PostgreSQL, dev server or real Temporal as installed, scripted LLM';
  return [
    [
      '`npm start` ready time, first start',
      `${s(r.first.wallMs)} s`,
      `spawn → "ready in" line on a fresh --home, initdb included (reported by the process: ${s(r.first.reportedMs)} s); ${how}`,
    ],
    [
      '`npm start` ready time, second start',
      `${s(r.second.wallMs)} s`,
      `the same --home again, its database reused (reported by the process: ${s(r.second.reportedMs)} s); ${how}`,
    ],
  ];
}

async function parallelRows(): Promise<Row[]> {
  const r = await benchParallel();
  const s = (values: number[]) => values.map((v) => (v / 1000).toFixed(1)).join(' / ');
  const rounds = (f: typeof r.embedded) => `${s(f.wallMs)} s`;
  const note = (f: typeof r.embedded) => `${f.failedTurns} turns not answered 200`;
  return [
    [
      `${r.conversations} parallel conversations, embedded PostgreSQL`,
      rounds(r.embedded),
      `\`convengine start\` on its defaults, FAQ script (2 turns) each, per round; ${note(r.embedded)}`,
    ],
    [
      `${r.conversations} parallel conversations, external PostgreSQL`,
      rounds(r.external),
      `the same stack with DATABASE_URL (a fresh database on the bench server); ${note(r.external)}`,
    ],
  ];
}

async function main(): Promise<void> {
  // The worker runs in its own process; this one only hosts the client and the in-process baseline.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const sections = selected();
  const started = Date.now();
  const servers = benchServers();
  const durable: Row[][] = [];
  const audit: Row[] = [];
  for (const [i, server] of servers.entries()) {
    const measured = await durabilityRows(sections, server, i === 0 && sections.has('audit'));
    durable.push(measured.durable);
    audit.push(...measured.audit);
  }
  const rows = [
    ...(durable[0] ?? []),
    ...audit,
    ...(sections.has('micro') ? await microRows() : []),
    ...(sections.has('ready') ? await readyRows() : []),
    ...(sections.has('parallel') ? await parallelRows() : []),
  ];
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `\nConvEngine benchmarks — ${new Date().toISOString()}, node ${process.version}, ${cpus().length} CPUs ` +
      `(load ${load}), ${((Date.now() - started) / 1000).toFixed(0)} s\n`
  );
  const policy = Object.entries(benchAuditPolicy()).map(([k, v]) => `${k}=${v}`);
  const auditNote = policy.length > 0 ? `, audit policy ${policy.join(', ')}` : '';
  console.log(`Durable side on ${BENCH_TEMPORAL_NAMES[servers[0] as BenchTemporal]}${auditNote}:\n`);
  console.log(markdownTable(rows));
  if (servers.length > 1 && durable.some((r) => r.length > 0)) {
    console.log('\nThe durable side on each server, same run:\n');
    console.log(markdownTable(sideBySide(durable), ['Metric', ...servers.map((s) => BENCH_TEMPORAL_NAMES[s])]));
  }
}

/** One row per metric, one column per server (the notes are in the per-server table). */
function sideBySide(perServer: Row[][]): string[][] {
  const metrics = (perServer[0] ?? []).map((row) => row[0]);
  return metrics.map((metric) => [metric, ...perServer.map((rows) => rows.find((r) => r[0] === metric)?.[1] ?? '—')]);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  }
);
