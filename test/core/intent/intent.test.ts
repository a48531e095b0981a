import { decideAgentOutcome, type AgentPolicy } from '../../../core/intent/agent-decision';
import { classifyIntent } from '../../../core/intent/classifier';
import type { JsonObject } from '../../../core/json';
import { classifierRow, intentRow, snapshotOf } from '../../support/config-rows';

const policy = (extra: Partial<AgentPolicy> = {}): AgentPolicy => ({
  allowedCodes: new Set(['FAQ', 'LOAN_APPLICATION']),
  knownStates: new Set(['UNKNOWN', 'IDLE', 'INTENT_COLLISION', 'COLLECT']),
  minConfidence: 0.55,
  collisionGap: 0.1,
  hasPendingClarification: false,
  isSchemaDriven: () => false,
  ...extra,
});

describe('agent decision (§4.3)', () => {
  const collision: JsonObject = {
    intent: '',
    confidence: 0,
    intentScores: [
      { intent: 'FAQ', confidence: 0.61 },
      { code: 'LOAN_APPLICATION', score: 0.55 },
      { intent: 'OTHER', confidence: 0.99 },
    ],
  };

  it('near-equal top scores ask a generated question; unknown scored intents are dropped', () => {
    const d = decideAgentOutcome(collision, policy());
    expect(d.scores).toEqual([
      { intent: 'FAQ', confidence: 0.61 },
      { intent: 'LOAN_APPLICATION', confidence: 0.55 },
    ]);
    expect(d.outcome).toEqual({
      kind: 'CLARIFY',
      intent: 'FAQ',
      state: 'INTENT_COLLISION',
      question: 'Did you mean Faq or Loan Application?',
      ignored: {},
    });
    expect(d.events.map((e) => e.stage)).toEqual(['INTENT_AGENT_COLLISION']);
  });

  it('a follow-up becomes the question; a pending clarification disables collision detection', () => {
    expect(decideAgentOutcome({ ...collision, followups: 'Question or application?' }, policy()).outcome).toMatchObject(
      { question: 'Question or application?' }
    );
    expect(decideAgentOutcome(collision, policy({ hasPendingClarification: true })).outcome).toMatchObject({
      kind: 'ACCEPT',
      intent: 'FAQ',
      confidence: 0.61,
    });
  });

  it('a schema-driven intent suppresses the clarification and is accepted in the collision state', () => {
    const d = decideAgentOutcome(collision, policy({ isSchemaDriven: (i) => i === 'FAQ' }));
    expect(d.events.map((e) => e.stage)).toEqual([
      'INTENT_AGENT_COLLISION',
      'INTENT_AGENT_CLARIFICATION_SUPPRESSED_SCHEMA_FLOW',
    ]);
    expect(d.outcome).toEqual({
      kind: 'ACCEPT',
      intent: 'FAQ',
      state: 'INTENT_COLLISION',
      confidence: 0.61,
      question: null,
      ignored: {},
    });
  });

  it.each([
    [{ intent: 'FAQ', confidence: 0.3 }, 'confidence below minimum'],
    [{ intent: 'REFUND', confidence: 0.9 }, 'Intent not in allowed intents'],
    [{ intent: '', confidence: 0.9 }, 'Intent could not be determined with sufficient confidence'],
    [{ intent: 'FAQ', needsClarification: true, clarificationQuestion: '' }, 'needsClarification without question'],
  ])('rejects %j: %s', (output, reason) => {
    const d = decideAgentOutcome(output, policy());
    expect(d.outcome).toMatchObject({ kind: 'REJECTED', payload: { reason } });
  });

  it('accepts a confident allowed intent with its state, scores given as an object map', () => {
    const d = decideAgentOutcome(
      { intent: 'LOAN_APPLICATION', state: 'IDLE', confidence: 0.8, intentScores: { LOAN_APPLICATION: 0.8, FAQ: 0.1 } },
      policy()
    );
    expect(d.outcome).toEqual({
      kind: 'ACCEPT',
      intent: 'LOAN_APPLICATION',
      state: 'IDLE',
      confidence: 0.8,
      question: null,
      ignored: {},
    });
    expect(d.scores[0]).toEqual({ intent: 'LOAN_APPLICATION', confidence: 0.8 });
  });

  it('stores the configured spelling of an intent and a state the model wrote in another case', () => {
    const d = decideAgentOutcome({ intent: ' loan_application ', state: 'collect', confidence: 0.8 }, policy());
    expect(d.outcome).toMatchObject({ kind: 'ACCEPT', intent: 'LOAN_APPLICATION', state: 'COLLECT', ignored: {} });
  });

  it.each([
    ['a state no rule declares', 'COMPLETED'],
    ['the ANY wildcard', 'ANY'],
    ['a state with a NUL', 'IDLE\u0000'],
    ['a 100 KB state', 'S'.repeat(100_000)],
  ])('accepts the intent but ignores %s as its state, audited shortened', (_name, state) => {
    const d = decideAgentOutcome({ intent: 'FAQ', state, confidence: 0.8 }, policy());
    expect(d.outcome).toMatchObject({ kind: 'ACCEPT', intent: 'FAQ', state: null });
    const ignored = (d.outcome as { ignored: { state?: string } }).ignored.state;
    expect(ignored).toBe(state.slice(0, 120));
  });

  it('a clarification naming an unknown intent and state moves neither, and says so', () => {
    const d = decideAgentOutcome(
      { intent: 'EVIL_INTENT', state: 'EVIL_STATE', needsClarification: true, clarificationQuestion: 'Which?' },
      policy()
    );
    expect(d.outcome).toEqual({
      kind: 'CLARIFY',
      intent: null,
      state: null,
      question: 'Which?',
      ignored: { intent: 'EVIL_INTENT', state: 'EVIL_STATE' },
    });
  });

  it('a clarification naming a known intent in another case keeps it, upper-cased', () => {
    const d = decideAgentOutcome(
      { intent: 'faq', state: 'idle', needsClarification: true, clarificationQuestion: 'Which?' },
      policy()
    );
    expect(d.outcome).toMatchObject({ kind: 'CLARIFY', intent: 'FAQ', state: 'IDLE', ignored: {} });
  });

  it('a rejected intent is audited shortened', () => {
    const d = decideAgentOutcome({ intent: 'X'.repeat(100_000), state: 'Y'.repeat(500), confidence: 0.9 }, policy());
    expect(d.outcome).toMatchObject({
      kind: 'REJECTED',
      payload: { intent: 'X'.repeat(120), state: 'Y'.repeat(120), reason: 'Intent not in allowed intents' },
    });
  });

  it('an accepted answer keeps the clarificationQuestion the model still asks (§4.3 step 8)', () => {
    const d = decideAgentOutcome(
      { intent: 'FAQ', state: 'IDLE', confidence: 0.8, clarificationQuestion: 'Which account?' },
      policy()
    );
    expect(d.outcome).toMatchObject({ kind: 'ACCEPT', intent: 'FAQ', question: 'Which account?' });
  });
});

describe('classifier (D7)', () => {
  const snapshot = (rows: Parameters<typeof classifierRow>[0][]) =>
    snapshotOf({
      intents: [intentRow('A'), intentRow('B'), intentRow('OFF', 1, { enabled: false })],
      classifiers: rows.map(classifierRow),
    });

  it.each([
    ['REGEX', '(?i)\\bloan\\b', 'A Loan please', true],
    ['CONTAINS', 'LOAN', 'a loan please', true],
    ['STARTS_WITH', 'i need', '  I NEED money', true],
    ['STARTS_WITH', 'need', 'I need money', false],
    ['EXACT', 'yes please', ' Yes Please ', true],
    ['EXACT', 'yes', 'yes please', false],
    // Letters compared as Java's equalsIgnoreCase does (one code point against one), not whole strings lower-cased.
    ['EXACT', 'İptal', 'iptal', true],
    ['EXACT', 'İptal', 'IPTAL', true],
    ['CONTAINS', 'İPTAL', 'siparişi iptal et', true],
    ['STARTS_WITH', 'İptal', 'iptal et', true],
    ['CONTAINS', 'ΟΔΟΣ', 'ΟΔΟΣΗΜΑΝΣΗ', true],
    ['STARTS_WITH', 'straße', 'STRAẞE 5', true],
    ['CONTAINS', 'strasse', 'straße', false],
    ['AGENT', 'x', 'x', false],
  ])('%s %s on "%s" → %s', (ruleType, pattern, text, matches) => {
    const out = classifyIntent(snapshot([{ intentCode: 'A', stateCode: 'idle', ruleType, pattern }]), text);
    expect(out.kind).toBe(matches ? 'MATCH' : 'NO_MATCH');
    if (out.kind === 'MATCH') expect(out.state).toBe('IDLE');
  });

  it('two intents collide; a disabled intent never matches; blank state is UNKNOWN', () => {
    expect(
      classifyIntent(
        snapshot([
          { intentCode: 'A', pattern: 'x', priority: 2 },
          { intentCode: 'B', pattern: 'x', priority: 1 },
        ]),
        'x'
      )
    ).toMatchObject({ kind: 'COLLISION', matchedIntents: ['B', 'A'] });
    expect(classifyIntent(snapshot([{ intentCode: 'OFF', pattern: 'x' }]), 'x').kind).toBe('NO_MATCH');
    expect(classifyIntent(snapshot([{ intentCode: 'A', stateCode: ' ', pattern: 'x' }]), 'x')).toMatchObject({
      kind: 'MATCH',
      state: 'UNKNOWN',
    });
  });
});
