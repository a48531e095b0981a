import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { failureOf } from '../../api/history/public-failure';
import { importHistory } from '../../cli/history/json';
import { PARKED_MEMO_KEY, type ParkedCall } from '../../workflows/messages';
import { PARKED_MEMO_PATCH } from '../../workflows/turn-versions';
import { activityEntries } from '../support/history';
import { testWorkflowBundle, workflowBundleBeforeParkedMemo } from '../support/workflow-bundle';

/**
 * Fixture sets, each recorded by `npm run histories:export` when the workflow changed on purpose:
 * conversationTurn (v1), conversationTurnV2 before local-first steps (v2/), with them (v2-local-first/),
 * with step runs (v2-step-runs/: consecutive local steps in one local activity), and with wide step runs
 * (v2-wide-step-runs/: McpPrepare and McpFinalize in local runs, local steps after a regular one in its
 * RegularSteps activity), and conversationTurnV3 (v3/: the same steps, with no patch asked). v3-parked/
 * (export-parked-histories.ts) holds V3 turns parked on an approval or a held tool call and then decided,
 * recorded before the approval-resume patch: what follows a person's decision must replay too; v3-parked-position/
 * holds the same turns with it and the park-records-position patch; v3-parked-request-row/ with the approval-request-row
 * patch too (the approval's request row written as the turn parks); v3-parked-memo/ with the parked-call-memo patch too
 * (what the turn waits on in its memo while parked). v3-parked-expired/ holds turns parked and never decided, whose
 * approval expired (APPROVAL_EXPIRED) or hold timed out (HOLD_TIMEOUT): the paths after a fired timer;
 * v3-parked-memo-expired/ the same with every patch a parked turn asks today.
 * v3-failed/
 * (export-failed-histories.ts) holds a V3 turn an operator failed, before and after the turn-failure-row patch, and one
 * whose commit could not store its failure rows (a database outage), before and after the unwritten-failure-row patch;
 * both again with the turn-failure-outlasts-outage patch (`-outlasting-outage`: TurnFailure a regular activity); and one
 * cancelled during a slow tool call, before and after the turn-cancelled-row patch, and with the cancelled-turn-outcome
 * patch (TurnOutcome CANCELLED) too; and one cancelled during the planner's slow tool call, before the
 * cancelled-tool-call-stands patch (the call taken for the tool's failure, TOOL_FAILED) and with it; and one whose
 * planner's NON_IDEMPOTENT_WRITE a stopping worker cut (WorkerShutdown), before the shutdown-cut-write-held patch (the
 * cut taken for the tool's failure, TOOL_FAILED) and with it (held, then failed by an operator); both turns an operator
 * failed again with the hold-fail-reason-in-details patch (`-reason-in-details`: the operator's reason in the
 * failure's details, not its message). v3-direct-repeat/ (export-direct-repeat-histories.ts) holds a V3 turn whose planner
 * asks for the direct tool call that failed in the same turn, before the planner-refuses-failed-direct-call patch (the
 * call sent again) and with it (refused).
 */
const SEED_SETS = ['', 'v2', 'v2-local-first', 'v2-step-runs', 'v2-wide-step-runs', 'v3'];
const SETS = [
  ...SEED_SETS,
  'v3-parked',
  'v3-parked-position',
  'v3-parked-request-row',
  'v3-parked-memo',
  'v3-parked-expired',
  'v3-parked-memo-expired',
  'v3-failed',
  'v3-direct-repeat',
];
const ROOT = join(__dirname, 'histories');

const fixtures = SETS.flatMap((set) =>
  readdirSync(join(ROOT, set))
    .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
    .sort()
    .map((f) => (set === '' ? f : `${set}/${f}`))
);

function load(file: string) {
  const slash = file.lastIndexOf('/');
  const dir = join(ROOT, file.slice(0, Math.max(slash, 0)));
  const name = file.slice(slash + 1);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    manifest: { file: string; workflowId: string }[];
  };
  const entry = manifest.manifest.find((m) => m.file === name);
  if (!entry) throw new Error(`${file} is not in its manifest.json`);
  return { workflowId: entry.workflowId, history: importHistory(readFileSync(join(dir, name), 'utf8')) };
}

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

describe('replay of committed turn histories (issue #6 item 10)', () => {
  it('has the seed conversation fixtures', () => {
    expect(fixtures).toEqual(
      expect.arrayContaining(['loan-confirmation-turn3.json', 'move-connections-turn2.json', 'faq-turn1.json'])
    );
    for (const set of SEED_SETS.filter((set) => set !== '')) {
      expect(fixtures).toEqual(
        expect.arrayContaining([`${set}/loan-confirmation-turn3.json`, `${set}/move-connections-turn2.json`])
      );
    }
    expect(fixtures).toEqual(
      expect.arrayContaining(['v3-parked/approval-approve.json', 'v3-parked/planner-hold-retry-retry.json'])
    );
    expect(fixtures).toEqual(
      expect.arrayContaining(['v3-parked-expired/approval-expired.json', 'v3-parked-expired/planner-hold-timeout.json'])
    );
    expect(fixtures).toEqual(
      expect.arrayContaining([
        'v3-failed/planner-hold-fail-before-failure-row.json',
        'v3-failed/planner-hold-fail.json',
        'v3-failed/commit-rows-unwritten-before-unwritten-row.json',
        'v3-failed/commit-rows-unwritten.json',
        'v3-failed/planner-hold-fail-outlasting-outage.json',
        'v3-failed/commit-rows-unwritten-outlasting-outage.json',
        'v3-failed/cancelled-in-tool-call-before-cancelled-row.json',
        'v3-failed/cancelled-in-tool-call-before-cancelled-outcome.json',
        'v3-failed/cancelled-in-tool-call.json',
        'v3-failed/planner-hold-fail-reason-in-details.json',
      ])
    );
  });

  it('has the workflow schedule TurnFailure as a regular activity only in the histories recorded with the patch', () => {
    const turnFailures = (file: string) =>
      activityEntries(load(file).history.events ?? []).filter((e) => e.type === 'TurnFailure');
    for (const name of ['planner-hold-fail', 'commit-rows-unwritten']) {
      expect(turnFailures(`v3-failed/${name}.json`)).toMatchObject([{ local: true }]);
      expect(turnFailures(`v3-failed/${name}-outlasting-outage.json`)).toMatchObject([{ local: false }]);
    }
  });

  it("has an operator's reason in the failed turn's messages only before the patch; readers find it either way", () => {
    const failureOfTurn = (file: string) => {
      const closed = (load(file).history.events ?? []).find((e) => e.workflowExecutionFailedEventAttributes);
      return closed?.workflowExecutionFailedEventAttributes?.failure ?? {};
    };
    const reason = 'fixture: the upstream is down for the day';
    const full = `An operator failed the turn at loan.application.submit: ${reason}`;
    const before = failureOfTurn('v3-failed/planner-hold-fail-outlasting-outage.json');
    expect({ turn: before.message?.includes(reason), cause: before.cause?.message }).toEqual({
      turn: true,
      cause: full,
    });
    const after = failureOfTurn('v3-failed/planner-hold-fail-reason-in-details.json');
    expect(JSON.stringify([after.message, after.cause?.message])).not.toContain(reason);
    for (const failure of [before, after]) expect(failureOf(failure).message).toBe(full);
  });

  it("has the workflow write a commit's unwritten failure row only in the history recorded with the patch", () => {
    const types = (file: string) => activityEntries(load(file).history.events ?? []).map((e) => e.type);
    expect(types('v3-failed/commit-rows-unwritten-before-unwritten-row.json')).not.toContain('TurnFailure');
    expect(types('v3-failed/commit-rows-unwritten.json')).toContain('TurnFailure');
  });

  it("has the workflow write a cancelled turn's row only in the history recorded with the patch", () => {
    const types = (file: string) => activityEntries(load(file).history.events ?? []).map((e) => e.type);
    expect(types('v3-failed/cancelled-in-tool-call-before-cancelled-row.json')).not.toContain('TurnFailure');
    expect(types('v3-failed/cancelled-in-tool-call.json')).toContain('TurnFailure');
  });

  it("has the workflow record a cancelled turn's TurnOutcome CANCELLED only in the history recorded with the patch", () => {
    const outcomes = (file: string) =>
      (load(file).history.events ?? []).flatMap((e) => {
        const data =
          e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.['TurnOutcome']?.data;
        return data ? [JSON.parse(Buffer.from(data).toString('utf8')) as unknown] : [];
      });
    expect(outcomes('v3-failed/cancelled-in-tool-call-before-cancelled-outcome.json')).toEqual([]);
    expect(outcomes('v3-failed/cancelled-in-tool-call.json')).toEqual(['CANCELLED']);
  });

  it('has a parked turn record its call in its memo, and clear it as it resumes, only in the histories with the patch', () => {
    const parkedCalls = (file: string) =>
      (load(file).history.events ?? []).flatMap((e) => {
        const memo = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[PARKED_MEMO_KEY];
        if (!memo) return [];
        const call = memo.data?.length ? (JSON.parse(Buffer.from(memo.data).toString('utf8')) as ParkedCall) : null;
        return [
          call ? (call.pending ? `pending #${call.pending.callIndex}` : `held #${call.held?.callIndex}`) : 'cleared',
        ];
      });
    expect(parkedCalls('v3-parked-request-row/approval-approve.json')).toEqual([]);
    expect(parkedCalls('v3-parked-request-row/planner-hold-retry-retry.json')).toEqual([]);
    expect(parkedCalls('v3-parked-memo/approval-approve.json')).toEqual(['pending #2', 'cleared']);
    // Held, retried and held again, retried: two holds.
    const twice = ['held #2', 'cleared', 'held #2', 'cleared'];
    expect(parkedCalls('v3-parked-memo/planner-hold-retry-retry.json')).toEqual(twice);
    expect(parkedCalls('v3-parked-memo-expired/approval-expired.json')).toEqual(['pending #2', 'cleared']);
  });

  it('has the expired turns end on their fired timer, with no decision sent', () => {
    for (const name of ['approval-expired', 'planner-hold-timeout']) {
      const events = load(`v3-parked-expired/${name}.json`).history.events ?? [];
      expect(events.filter((e) => e.timerFiredEventAttributes)).toHaveLength(1);
      const updates = events.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name);
      expect(updates.filter((u) => u !== undefined)).toEqual(['awaitMilestone']);
    }
  });

  it('has the planner send a failed direct call again only in the history recorded before the patch', () => {
    const toolCalls = (file: string) =>
      activityEntries(load(file).history.events ?? []).filter((e) => e.type === 'McpToolCall');
    expect(toolCalls('v3-direct-repeat/direct-call-repeated-before-refusal.json')).toHaveLength(1);
    expect(toolCalls('v3-direct-repeat/direct-call-repeated.json')).toHaveLength(0);
  });

  it.each(fixtures)('replays %s with the current workflow code', async (file) => {
    const { workflowId, history } = load(file);
    await expect(
      Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle(), replayName: file }, history, workflowId)
    ).resolves.toBeUndefined();
  });

  it('fails the replay of a turn parked with the memo on the code before it: a rollback strands such turns', async () => {
    const before = await workflowBundleBeforeParkedMemo();
    const replay = (file: string) => {
      const { workflowId, history } = load(file);
      return Worker.runReplayHistory({ workflowBundle: before, replayName: file }, history, workflowId);
    };
    // What a worker of the build before PARKED_MEMO_PATCH logs for each task of such a turn (TMPRL1100).
    const stranded = replay('v3-parked-memo/approval-approve.json');
    await expect(stranded).rejects.toBeInstanceOf(DeterminismViolationError);
    await expect(stranded).rejects.toThrow(
      new RegExp(`\\[TMPRL1100\\] .*patch marker encountered for change ${PARKED_MEMO_PATCH}, but there is no`)
    );
    // A turn that build parked, before the patch, replays on it as it ran.
    await expect(replay('v3-parked-request-row/approval-approve.json')).resolves.toBeUndefined();
  });

  it.each([
    'loan-confirmation-turn3.json',
    'v2/loan-confirmation-turn3.json',
    'v2-local-first/loan-confirmation-turn3.json',
    'v2-step-runs/loan-confirmation-turn3.json',
    'v2-wide-step-runs/loan-confirmation-turn3.json',
    'v3/loan-confirmation-turn3.json',
  ])('fails the replay of %s when the workflow is changed in a non-deterministic way', async (file) => {
    const changed = await bundleWorkflowCode({ workflowsPath: join(__dirname, 'changed-workflow'), logger: quiet });
    const { workflowId, history } = load(file);
    await expect(
      Worker.runReplayHistory({ workflowBundle: changed, replayName: 'changed' }, history, workflowId)
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
