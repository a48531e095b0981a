import { and, eq, inArray } from 'drizzle-orm';
import { systemClock } from '../../activities/deps';
import { pipelineEnd } from '../../activities/pipeline/pipeline-end';
import type { StepContext } from '../../activities/step-runtime';
import { StepScope } from '../../core/step/scope';
import { blankSession } from '../../core/turn/session-factory';
import { seedPack } from '../../db/seed';
import { ceConfig } from '../../db/schema';
import { PipelineHarness } from '../support/pipeline-harness';

/** ce_config `AuditService.*` (the Java engine's convengine.audit.*) decides which rows a turn writes. */
describe('audit policy in a turn', () => {
  let h: PipelineHarness;
  let nextId = 80_000;
  const setAudit = async (settings: Record<string, string>) => {
    const rows = Object.entries(settings).map(([configKey, configValue]) => ({
      configId: nextId++,
      configType: 'AuditService',
      configKey,
      configValue,
    }));
    const keys = rows.map((r) => r.configKey);
    await h.tdb.db
      .delete(ceConfig)
      .where(and(eq(ceConfig.configType, 'AuditService'), inArray(ceConfig.configKey, keys)));
    await h.tdb.db.insert(ceConfig).values(rows);
    await h.store.refresh();
  };

  beforeAll(async () => {
    h = await PipelineHarness.start();
    await seedPack(h.tdb.db, 'faq');
    await h.store.refresh();
  });
  afterAll(async () => h.stop());

  it('by default writes every stage, each payload with its _meta', async () => {
    const turn = await h.turn({ message: 'hi' });
    const audits = await h.audits(turn.conversationId, 1);
    expect(audits.map((a) => a.stage)).toEqual(
      expect.arrayContaining(['USER_INPUT', 'STEP_ENTER', 'STEP_EXIT', 'ASSISTANT_OUTPUT', 'PIPELINE_TIMING'])
    );
    expect(audits.every((a) => typeof a.payload['_meta'] === 'object')).toBe(true);
  });

  it('PIPELINE_TIMING sums the STEP_EXIT durations of every step before it, the commit in its own run included', async () => {
    const turn = await h.turn({ message: 'hi' });
    const audits = await h.audits(turn.conversationId, 1);
    const exits: Record<string, number> = {};
    for (const a of audits.filter((a) => a.stage === 'STEP_EXIT' && a.payload['step'] !== 'PipelineEnd')) {
      const step = a.payload['step'] as string;
      exits[step] = (exits[step] ?? 0) + (a.payload['durationMs'] as number);
    }
    expect(Object.keys(exits)).toEqual(expect.arrayContaining(['LoadOrCreateConversation', 'PersistConversation']));
    expect(audits.find((a) => a.stage === 'PIPELINE_TIMING')?.payload['steps']).toEqual(exits);
  });

  it('PipelineEnd reads the STEP_EXIT rows when its input carries no timings (a turn in flight across the upgrade)', async () => {
    const done = await h.turn({ message: 'hi' });
    const recorded = (await h.audits(done.conversationId, 1)).find((a) => a.stage === 'PIPELINE_TIMING');
    const turn = {
      conversationId: done.conversationId,
      turnNumber: 1,
      turnId: 'in-flight-turn',
      message: 'hi',
      inputParams: {},
      reset: false,
      requestContext: {},
      idempotencyKey: null,
      receivedAt: new Date().toISOString(),
    };
    const input = { turn, session: blankSession(turn), callKey: 'in-flight' };
    const scope = new StepScope(input.session);
    await pipelineEnd({ input, scope, deps: { db: h.tdb.db, clock: systemClock } } as unknown as StepContext);
    const steps = scope.audits.find((a) => a.stage === 'PIPELINE_TIMING')?.payload['steps'];
    // Its own STEP_EXIT row, written after the recorded PIPELINE_TIMING, is among those read.
    expect(steps).toMatchObject(recorded?.payload['steps'] as object);
    expect(steps).toHaveProperty('PipelineEnd');
  });

  it('STANDARD without _meta: the same answer, no step frames, payloads as emitted', async () => {
    const before = await h.turn({ message: 'hi' });
    await setAudit({ LEVEL: 'standard', PERSIST_META: 'false', EXCLUDE_STAGES: 'verbose_*' });
    const turn = await h.turn({ message: 'hi' });
    expect(turn).toMatchObject({ intent: before.intent, state: before.state, payload: before.payload });
    const audits = await h.audits(turn.conversationId, 1);
    const stages = audits.map((a) => a.stage);
    expect(stages).toEqual(expect.arrayContaining(['USER_INPUT', 'ASSISTANT_OUTPUT', 'PIPELINE_TIMING']));
    expect(stages.filter((s) => /^STEP_(ENTER|EXIT)$|^VERBOSE_/.test(s))).toEqual([]);
    expect(audits.filter((a) => '_meta' in a.payload)).toEqual([]);
    // The step timings travel with the turn, not through the STEP_EXIT rows this level drops.
    const timing = audits.find((a) => a.stage === 'PIPELINE_TIMING')?.payload['steps'] as Record<string, number>;
    const all = (await h.audits(before.conversationId, 1)).find((a) => a.stage === 'PIPELINE_TIMING');
    expect(Object.keys(timing).sort()).toEqual(Object.keys(all?.payload['steps'] as object).sort());
    expect(Object.values(timing).every((ms) => Number.isInteger(ms) && ms >= 0)).toBe(true);
    expect(stages.length).toBeLessThan((await h.audits(before.conversationId, 1)).length / 2);
  });

  it('a conversation whose intent is excluded writes no row, and its turn still completes', async () => {
    await setAudit({ ENABLED: 'true', EXCLUDE_INTENTS: 'GREET*' });
    const turn = await h.turn({ message: 'hi' });
    expect(turn.intent).toBe('GREETING');
    // Rows emitted before the intent was resolved remain; none after it.
    const stages = await h.stages(turn.conversationId, 1);
    expect(stages).toContain('USER_INPUT');
    expect(stages).not.toContain('ASSISTANT_OUTPUT');
    expect(stages).not.toContain('PIPELINE_TIMING');
  });

  it('refuses a config whose level is not one of the four', async () => {
    await expect(setAudit({ LEVEL: 'VERBOSE' })).rejects.toThrow(/AuditService\.LEVEL must be one of ALL, STANDARD/);
  });
});
