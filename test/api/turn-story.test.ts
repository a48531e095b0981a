import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INTERNAL_FAILURE_MESSAGE, publicFailure } from '../../api/history/public-failure';
import { turnStory, type TimelineItem } from '../../api/history/turn-story';
import { importHistory } from '../../cli/history/json';

const V2 = join(__dirname, '..', 'replay', 'histories', 'v2');
const story = (file: string) => turnStory(importHistory(readFileSync(join(V2, file), 'utf8')).events);
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
