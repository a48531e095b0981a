/**
 * The history-reading recipes of docs/runbook.md, run as written by bash and jq against committed
 * turn histories: a stand-in `temporal` prints the fixture for `workflow show --output json` and
 * records what `workflow reset` was asked. test/temporal/runbook.test.ts runs every recipe against the
 * real server; this covers the step runs that a live turn there does not produce.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importHistory } from '../../cli/history/json';
import { decodePayload } from '../../api/history/entries';

const RUNBOOK = readFileSync(join(__dirname, '..', '..', 'docs', 'runbook.md'), 'utf8');
const RECIPES = new Map(
  [...RUNBOOK.matchAll(/<!-- recipe: (\S+) -->\s*```bash\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]])
);
const HISTORIES = join(__dirname, '..', 'replay', 'histories', 'v2-wide-step-runs');

const FAKE_TEMPORAL = `#!/usr/bin/env bash
case "$1 $2" in
  "workflow show") if [[ " $* " == *" --output json "* ]]; then cat "$FIXTURE"; else echo "(the events)"; fi ;;
  "workflow describe") echo "(the description)" ;;
  "workflow reset") echo "$*" >> "$CALLS" ;;
  *) echo "unexpected: $*" >&2; exit 2 ;;
esac
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ce-runbook-'));
  writeFileSync(join(dir, 'temporal'), FAKE_TEMPORAL);
  chmodSync(join(dir, 'temporal'), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function recipe(name: string, fixture: string, vars: Record<string, string> = {}) {
  const script = RECIPES.get(name);
  if (!script) throw new Error(`docs/runbook.md has no recipe ${name}`);
  const calls = join(dir, `calls-${name}-${Object.values(vars).join('-')}`);
  writeFileSync(calls, '');
  const env = {
    ...process.env,
    PATH: `${dir}:${process.env.PATH ?? ''}`,
    FIXTURE: join(HISTORIES, fixture),
    CALLS: calls,
    TURN: 'turn-x-1',
    ...vars,
  };
  return new Promise<{ code: number; stdout: string; stderr: string; calls: string }>((resolve) => {
    execFile('bash', ['-c', `set -euo pipefail\n${script}`], { env, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr, calls: readFileSync(calls, 'utf8') })
    );
  });
}

/** The workflow task a step's first run was scheduled from: the reset point the recipe must find. */
function scheduledFrom(fixture: string, type: string, summaryStart: string): string {
  const { events } = importHistory(readFileSync(join(HISTORIES, fixture), 'utf8'));
  const event = events.find(
    (e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === type &&
      String(decodePayload(e.userMetadata?.summary)).startsWith(summaryStart)
  );
  return String(event?.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId ?? 'missing');
}

describe('runbook recipes on turns whose steps ran in step runs', () => {
  it('read-history prints every run by its summary, a regular run as its lead, then its steps', async () => {
    const out = await recipe('read-history', 'loan-confirmation-turn3.json');
    expect(out.code).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^DialogueAct: calls the LLM \(DA\); then InteractionPolicy, /),
        'McpToolCall: loan.application.submit (call 4, IDEMPOTENT_WRITE)',
        'LocalSteps: McpFinalize, Rules, ResponseResolution, Memory',
        'PersistConversation; then PipelineEnd',
      ])
    );
  });

  it.each([
    ['InteractionPolicy', 'DialogueAct: calls the LLM (DA)'],
    ['McpPrepare', 'DialogueAct: calls the LLM (DA)'],
    ['PipelineEnd', 'PersistConversation'],
    // The first LocalSteps marker names it too (planned), but handed over at DialogueAct before running it.
    ['ResponseResolution', 'DialogueAct: calls the LLM (DA)'],
  ])('reset-turn finds %s in the regular run it rode in', async (step, lead) => {
    const out = await recipe('reset-turn', 'faq-turn2.json', { STEP: step });
    expect(out.code).toBe(0);
    const event = scheduledFrom('faq-turn2.json', 'RegularSteps', lead);
    expect(out.calls.trim()).toBe(
      `workflow reset --workflow-id turn-x-1 --event-id ${event} --reason re-run from ${step} after the fix`
    );
  });

  it('reset-turn refuses a step the turn never ran', async () => {
    const out = await recipe('reset-turn', 'faq-turn2.json', { STEP: 'NoSuchStep' });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('no step NoSuchStep in turn-x-1');
    expect(out.calls).toBe('');
  });
});
