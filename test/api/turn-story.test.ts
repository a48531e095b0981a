import { readdirSync, readFileSync } from 'node:fs';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { join } from 'node:path';
import { INTERNAL_FAILURE_MESSAGE, publicFailure, publicFailureOf } from '../../api/history/public-failure';
import { turnStory, type TimelineItem } from '../../api/history/turn-story';
import { importHistory } from '../../cli/history/json';

const HISTORIES = join(__dirname, '..', 'replay', 'histories');
const story = (file: string, set = 'v2') =>
  turnStory(importHistory(readFileSync(join(HISTORIES, set, file), 'utf8')).events);
const steps = (items: TimelineItem[]) =>
  items.filter((i): i is Extract<TimelineItem, { kind: 'step' }> => i.kind === 'step');

describe("a turn's story from its recorded history (the console's timeline)", () => {
  it('lists every step once, local ones included, each with its timing, attempt and outcome', () => {
    const s = story('loan-confirmation-turn3.json');
    const all = steps(s.timeline);
    expect(all[0]).toMatchObject({ type: 'LoadOrCreateConversation', local: true, attempt: 1, outcome: 'COMPLETED' });
    expect(all.filter((st) => st.local).length).toBeGreaterThan(5);
    expect(all.map((st) => st.type)).toEqual(expect.arrayContaining(['McpPlan', 'McpToolCall', 'PersistConversation']));
    for (const step of all) {
      expect(step.durationMs).toBeGreaterThanOrEqual(0);
      expect(step.offsetMs).toBeGreaterThanOrEqual(0);
      expect(step.activityId).toEqual(expect.any(String));
    }
    // Offsets never run backwards: local steps start after the one before them.
    const offsets = all.map((st) => st.offsetMs as number);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });

  it('numbers planner iterations and tool calls, and reads the close, outcome and config version', () => {
    const s = story('loan-confirmation-turn3.json');
    const plans = steps(s.timeline).filter((st) => st.type === 'McpPlan');
    expect(plans.map((p) => p.iteration)).toEqual(plans.map((_, i) => i + 1));
    expect(s).toMatchObject({ status: 'COMPLETED', failure: null, decisions: [] });
    expect(s.searchAttributes).toMatchObject({
      TurnOutcome: 'ANSWERED',
      ConfigVersion: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(s.timeline.at(-1)).toMatchObject({ kind: 'close', status: 'COMPLETED' });
    expect(s.durationMs).toBeGreaterThan(0);
    expect(s.result).toMatchObject({ outcome: 'ANSWERED', turnNumber: 3 });
  });
});

describe('the timeline in time order', () => {
  const files = (set: string) => readdirSync(join(HISTORIES, set)).filter((f) => f.endsWith('.json'));
  it.each(['v2', 'v2-local-first', 'v2-step-runs', 'v2-wide-step-runs', 'v3', 'v3-failed', 'v3-parked'])(
    '%s: no row is listed above an earlier one (a local step, recorded at its task end, by when it ran)',
    (set) => {
      for (const file of files(set)) {
        const { timeline } = story(file, set);
        const offsets = timeline.map((i) => i.offsetMs).filter((o): o is number => o !== null);
        expect([file, offsets]).toEqual([file, [...offsets].sort((a, b) => a - b)]);
      }
    }
  );
});

describe('a turn whose local steps ran in step runs (core/turn/step-runs.ts)', () => {
  it.each(['loan-confirmation-turn3.json', 'move-connections-turn1.json', 'faq-turn1.json'])(
    '%s: tells the same steps, in the same order, as when each local step was its own local activity',
    (file) => {
      const names = (set: string) => steps(story(file, set).timeline).map((st) => st.type);
      for (const set of ['v2-step-runs', 'v2-wide-step-runs']) {
        expect(names(set)).toEqual(names('v2-local-first'));
        const all = steps(story(file, set).timeline);
        const offsets = all.map((st) => st.offsetMs as number);
        expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
        for (const step of all) expect(step.durationMs).toBeGreaterThanOrEqual(0);
      }
    }
  );

  it('marks the steps that rode in a regular step run: in a run, not local, timed one after the other', () => {
    const all = steps(story('faq-turn1.json', 'v2-wide-step-runs').timeline);
    const commit = all.slice(-2);
    expect(commit.map((st) => [st.type, st.local, st.inRun])).toEqual([
      ['PersistConversation', false, true],
      ['PipelineEnd', false, true],
    ]);
    expect(commit[1]!.offsetMs).toBeGreaterThanOrEqual(commit[0]!.offsetMs as number);
    expect(all.slice(0, -2).every((st) => st.local && st.inRun)).toBe(true);
  });

  it('names the step that failed a run, after the steps that ran before it', () => {
    const json = (value: unknown) => defaultPayloadConverter.toPayload(value);
    const progress = {
      ran: [{ name: 'Rules', callKey: '20-Rules', durationMs: 3, result: { patch: {}, summary: {} } }],
      failedStep: { name: 'ResponseResolution', callKey: '21-ResponseResolution' },
    };
    const marker = temporal.api.history.v1.HistoryEvent.fromObject({
      eventId: 9,
      markerRecordedEventAttributes: {
        markerName: 'core_local_activity',
        details: { data: { payloads: [json({ activity_type: 'LocalSteps', activity_id: '4', attempt: 1 })] } },
        failure: {
          message: 'no ce_response for intent X in state Y',
          applicationFailureInfo: {
            type: 'RESPONSE_MAPPING_NOT_FOUND',
            nonRetryable: true,
            details: { payloads: [json(progress)] },
          },
        },
      },
    });
    const all = steps(turnStory([marker]).timeline);
    expect(all.map((st) => [st.type, st.outcome, st.failure?.type ?? null])).toEqual([
      ['Rules', 'COMPLETED', null],
      ['ResponseResolution', 'FAILED', 'RESPONSE_MAPPING_NOT_FOUND'],
    ]);
  });
});

describe('a local attempt handed to a regular activity (docs/architecture.md, "Local first")', () => {
  it.each(['v2-local-first', 'v2-step-runs', 'v2-wide-step-runs', 'v3'])(
    "%s: shows the handoff as HANDED_OFF, not a failure, and the regular run after it as the call's first run",
    (set) => {
      const s = story('loan-confirmation-turn1.json', set);
      const all = steps(s.timeline);
      expect(s.status).toBe('COMPLETED');
      expect(all.filter((st) => st.outcome === 'FAILED')).toEqual([]);
      const handoffs = all.filter((st) => st.outcome === 'HANDED_OFF');
      expect(handoffs.map((st) => st.type)).toEqual(['DialogueAct', 'SchemaExtraction', 'ResponseResolution']);
      for (const handoff of handoffs) {
        expect(handoff).toMatchObject({ local: true, failure: null, iteration: 1 });
        expect(handoff.note).toMatch(/^handed to a regular activity: \S/);
        const run = all.slice(all.indexOf(handoff) + 1).find((st) => st.type === handoff.type);
        expect(run).toMatchObject({ local: false, outcome: 'COMPLETED', iteration: 1, note: null });
      }
    }
  );
});

describe('a step run whose result is not what the worker writes', () => {
  it.each([
    ['an entry without a name', { ran: [{ durationMs: 3 }], handedOver: null }],
    ['an entry whose duration is text', { ran: [{ name: 'Rules', durationMs: 'soon' }], handedOver: null }],
    ['no handedOver at all', { ran: [] }],
    ['a handedOver without a name', { ran: [], handedOver: { reason: 'x' } }],
  ])('shows the run as its one LocalSteps row: %s', (_, result) => {
    const marker = temporal.api.history.v1.HistoryEvent.fromObject({
      eventId: 7,
      markerRecordedEventAttributes: {
        markerName: 'core_local_activity',
        details: {
          data: { payloads: [defaultPayloadConverter.toPayload({ activity_type: 'LocalSteps', attempt: 1 })] },
          result: { payloads: [defaultPayloadConverter.toPayload(result)] },
        },
      },
    });
    const all = steps(turnStory([marker]).timeline);
    expect(all.map((st) => [st.type, st.outcome])).toEqual([['LocalSteps', 'COMPLETED']]);
  });
});

describe('failures the console shows', () => {
  it('shows engine failures as written, and hides the message of anything else', () => {
    const engine = { type: 'TOOL_HTTP_ERROR', message: 'order service answered 503', nonRetryable: false };
    expect(publicFailure(engine)).toEqual(engine);
    for (const type of ['Error', 'DatabaseError', null]) {
      expect(publicFailure({ type, message: 'relation "secret_table" does not exist', nonRetryable: true })).toEqual({
        type: 'INTERNAL',
        message: INTERNAL_FAILURE_MESSAGE,
        nonRetryable: true,
      });
    }
  });
});

describe('a turn that failed, as every API view shows it (publicFailureOf)', () => {
  const timeout = { message: 'activity StartToClose timeout', timeoutFailureInfo: { timeoutType: 1 } };
  /** The turn's TURN_FAILED around Temporal's ActivityFailure around the step's own failure. */
  const turnFailed = (own: temporal.api.failure.v1.IFailure): temporal.api.failure.v1.IFailure => ({
    message: 'Turn t failed: activity failed',
    applicationFailureInfo: { type: 'TURN_FAILED', nonRetryable: true },
    cause: { message: 'Activity task failed', activityFailureInfo: { activityType: { name: 'McpPlan' } }, cause: own },
  });
  const closedOn = (failure: temporal.api.failure.v1.IFailure) =>
    turnStory([
      { eventId: 1, eventTime: { seconds: 1 }, workflowExecutionStartedEventAttributes: {} },
      { eventId: 2, eventTime: { seconds: 2 }, workflowExecutionFailedEventAttributes: { failure } },
    ] as unknown as temporal.api.history.v1.IHistoryEvent[]);

  it('a step that timed out is TIMEOUT in the story, as in the POST reply and the pending activity', () => {
    // Before, the story walked to the root, found no application failure there and said INTERNAL.
    expect(closedOn(turnFailed(timeout))).toMatchObject({
      status: 'FAILED',
      failure: 'TIMEOUT: activity StartToClose timeout',
    });
    expect(publicFailureOf(timeout)).toEqual({
      type: 'TIMEOUT',
      message: 'activity StartToClose timeout',
      nonRetryable: false,
    });
  });

  it("shows the step's own failure, not the driver's error it carries as its cause", () => {
    const own = {
      message: 'LLM call PLAN failed: overloaded',
      applicationFailureInfo: { type: 'LLM_CALL_FAILED', nonRetryable: false },
      cause: { message: 'relation "secret_table"', applicationFailureInfo: { type: 'InternalServerError' } },
    };
    expect(closedOn(turnFailed(own)).failure).toBe('LLM_CALL_FAILED: LLM call PLAN failed: overloaded');
    const driver = { message: 'relation "secret_table"', applicationFailureInfo: { type: 'DatabaseError' } };
    expect(closedOn(turnFailed(driver)).failure).toBe(`INTERNAL: ${INTERNAL_FAILURE_MESSAGE}`);
  });
});

describe('search attributes, which real Temporal sends in a different order on every read', () => {
  const upsert = (eventId: number, fields: Record<string, string>) =>
    temporal.api.history.v1.HistoryEvent.fromObject({
      eventId,
      upsertWorkflowSearchAttributesEventAttributes: {
        searchAttributes: {
          indexedFields: Object.fromEntries(
            Object.entries(fields).map(([k, v]) => [k, defaultPayloadConverter.toPayload(v)])
          ),
        },
      },
    });
  const read = (order: string[]) => {
    const values: Record<string, string> = { TurnOutcome: 'HELD', State: 'S', Intent: 'I', ConfigVersion: 'c' };
    const fields = Object.fromEntries(order.map((k) => [k, values[k]!]));
    return turnStory([upsert(5, { TemporalChangeVersion: 'v' }), upsert(9, fields)]);
  };

  it('tells them sorted by name, so two reads of the same turn are the same text', () => {
    const one = read(['TurnOutcome', 'State', 'Intent', 'ConfigVersion']);
    const two = read(['Intent', 'ConfigVersion', 'TurnOutcome', 'State']);
    const sorted = ['ConfigVersion', 'Intent', 'State', 'TemporalChangeVersion', 'TurnOutcome'];
    expect(Object.keys(one.searchAttributes)).toEqual(sorted);
    const upserted = one.timeline.find((i) => i.kind === 'search-attributes' && i.eventId === 9);
    expect(Object.keys((upserted as { values: object }).values)).toEqual([
      'ConfigVersion',
      'Intent',
      'State',
      'TurnOutcome',
    ]);
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
  });
});
