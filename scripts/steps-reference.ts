import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STEP_SPECS, type RetrySpec, type StepSpec } from '../core/turn/steps';

const BEGIN = '<!-- steps:begin (npm run docs:steps) -->';
const END = '<!-- steps:end -->';

function retry(spec: RetrySpec): string {
  const attempts = `${spec.maximumAttempts} × ${spec.initialIntervalMs} ms…${spec.maximumIntervalMs / 1000} s`;
  const outlasting = spec.databaseUnreachableRetryMs;
  return outlasting === undefined ? attempts : `${attempts}; database unreachable: for ${outlasting / 3_600_000} h`;
}

/** How the V2 workflow schedules the step. */
function runsAs(s: StepSpec): string {
  if (s.legacy) return 'regular (v1 only)';
  if (s.composite) {
    return s.kind === 'local'
      ? 'local: a local step and the local steps after it'
      : "regular: a regular step and the local steps after it, with the lead's retry and timeout";
  }
  if (s.kind === 'local') return 'local';
  if (!s.localFirst) return 'regular';
  return s.kind === 'model' ? 'local; regular when it calls the LLM' : 'local; regular when it runs consumer code';
}

/** A regular step run (RegularSteps) is scheduled with its lead step's retry policy and timeout. */
function leads(s: StepSpec): boolean {
  return s.composite === true && s.kind !== 'local';
}

/** The step table of core/turn/steps.ts as markdown (docs/architecture.md). */
export function stepsTableMarkdown(): string {
  const rows = STEP_SPECS.map(
    (s) =>
      `| ${s.name} | ${s.legacy ? 'v1 only' : s.kind} | ${runsAs(s)} | ${s.sideEffect} | ${leads(s) ? "its lead's" : retry(s.retry)} | ${leads(s) ? "its lead's" : `${s.startToCloseMs / 1000} s`} | ${s.why} |`
  );
  return [
    BEGIN,
    '| Step | Kind | Runs as | Side effect | Retry (attempts × backoff) | Start-to-close | Why |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    END,
  ].join('\n');
}

/**
 * `npm run docs:steps [doc]`: regenerates the step table in docs/architecture.md (or the given copy of it), formatted
 * as `prettier --check` wants it (the table's columns padded), so regenerating with unchanged steps is a no-op.
 */
async function main(path = join(__dirname, '..', 'docs', 'architecture.md')): Promise<void> {
  const doc = readFileSync(path, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${path} has no ${BEGIN} … ${END} block`);
  const regenerated = doc.slice(0, start) + stepsTableMarkdown() + doc.slice(end + END.length);
  // Loaded here, not at the top: prettier's CommonJS entry imports ES modules as it loads, which Jest's VM cannot,
  // and test/core/turn/steps.test.ts imports stepsTableMarkdown from this file.
  const { format, resolveConfig } = await import('prettier');
  writeFileSync(path, await format(regenerated, { ...(await resolveConfig(path)), filepath: path }));
  console.log(`updated ${path} (${STEP_SPECS.length} steps)`);
}

if (require.main === module) {
  main(process.argv[2]).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
