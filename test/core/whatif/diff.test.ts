import { countByStatus, diffTurn, hasDifference, skippedTurn, type WhatifReport } from '../../../core/whatif/diff';
import { turnFactsOf, type FactAuditRow, type TurnFacts } from '../../../core/whatif/facts';
import { formatWhatifReport } from '../../../core/whatif/format';

const ref = {
  conversationId: '00000000-0000-4000-8000-000000000001',
  turnNumber: 2,
  userText: 'Looks good, go ahead.',
};

const rows: FactAuditRow[] = [
  { stage: 'USER_INPUT', payload: { text: 'Looks good, go ahead.' } },
  { stage: 'RULE_NO_MATCH (RulesStep)', payload: { ruleId: 3, action: 'SET_STATE' } },
  { stage: 'RULE_APPLIED (RulesStep)', payload: { ruleId: 7, action: 'SET_STATE' } },
  { stage: 'MCP_TOOL_CALL', payload: { tool_code: 'loan.submit', args: { b: 2, a: 1 } } },
  { stage: 'MCP_TOOL_APPROVAL_REQUESTED', payload: { tool_code: 'loan.submit' } },
  { stage: 'MCP_TOOL_APPROVAL_GRANTED', payload: { tool_code: 'loan.submit', decision: 'APPROVED' } },
  { stage: 'TOOL_ORCHESTRATION_REQUEST', payload: { tool_code: 'order.status', args: { id: 'ORD-1' } } },
  {
    stage: 'ENGINE_RETURN',
    payload: { intent: 'LOAN', state: 'SUBMITTED', final_result: { payload: { type: 'TEXT', value: 'Done.' } } },
  },
];

function facts(over: Partial<TurnFacts> = {}): TurnFacts {
  return { ...turnFactsOf(rows), ...over };
}

describe('what-if turn facts', () => {
  it('reads intent, state, fired rules, tools with canonical args, approvals and the response from audit rows', () => {
    expect(turnFactsOf(rows)).toEqual({
      intent: 'LOAN',
      state: 'SUBMITTED',
      rulesFired: ['rule 7 SET_STATE (RulesStep)'],
      toolsCalled: ['loan.submit {"a":1,"b":2}', 'order.status {"id":"ORD-1"}'],
      response: 'Done.',
      approvals: ['loan.submit APPROVED'],
      error: null,
    });
  });

  it('a turn without ENGINE_RETURN keeps its last step error and where it stopped', () => {
    const failed = turnFactsOf([
      { stage: 'USER_INPUT', payload: { text: 'x' } },
      {
        stage: 'STEP_ERROR',
        payload: { step: 'ResponseResolution', errorMessage: 'boom', _meta: { intent: 'LOAN', state: 'REVIEW' } },
      },
    ]);
    expect(failed).toMatchObject({
      intent: 'LOAN',
      state: 'REVIEW',
      response: null,
      error: 'ResponseResolution: boom',
    });
  });
});

describe('what-if turn diff', () => {
  it('identical facts are "same" with no changes', () => {
    expect(diffTurn(ref, facts(), facts())).toMatchObject({ status: 'same', changes: [] });
  });

  it('names every field that changed, with both values, in report order', () => {
    const diff = diffTurn(ref, facts(), facts({ state: 'REVIEW', rulesFired: [], response: 'Wait.' }));
    expect(diff.status).toBe('changed');
    expect(diff.changes).toEqual([
      { field: 'state', recorded: 'SUBMITTED', replayed: 'REVIEW' },
      { field: 'rulesFired', recorded: ['rule 7 SET_STATE (RulesStep)'], replayed: [] },
      { field: 'response', recorded: 'Done.', replayed: 'Wait.' },
    ]);
  });

  it('a missing recording decides the status, even when nothing else changed', () => {
    expect(diffTurn(ref, facts(), facts(), [{ kind: 'model', what: 'INTENT call' }]).status).toBe('needs-model');
    expect(diffTurn(ref, facts(), facts({ state: 'X' }), [{ kind: 'tool', what: 't {}' }]).status).toBe('needs-tool');
    expect(diffTurn(ref, facts(), facts(), [{ kind: 'approval', what: 't {}' }]).status).toBe('needs-approval');
  });

  it('a turn that needs a recording has no changes: what differs after the refused question is not the draft', () => {
    // The replay refused the approval it could not answer (REJECTED) and stopped without the model's answer.
    const refused = facts({
      approvals: ['loan.submit REJECTED'],
      response: null,
      error: 'McpPlanner: the model answer was never recorded',
    });
    const missing = [{ kind: 'approval' as const, what: 'loan.submit {"a":1,"b":2}' }];
    const diff = diffTurn(ref, facts(), refused, missing);
    expect(diff).toMatchObject({ status: 'needs-approval', changes: [], missing, replayed: refused });
    const report: WhatifReport = {
      config: { version: 'abcdef0123456789', source: 'current' },
      conversations: [{ conversationId: ref.conversationId, turns: [diff] }],
    };
    expect(formatWhatifReport(report).slice(3, -1)).toEqual([
      `${' '.repeat(44)}needs approval: loan.submit {"a":1,"b":2}`,
    ]);
  });

  it('hasDifference is false only when every turn is "same"', () => {
    const report = (turns: ReturnType<typeof diffTurn>[]): WhatifReport => ({
      config: { version: 'abcdef0123456789', source: 'current' },
      conversations: [{ conversationId: ref.conversationId, turns }],
    });
    expect(hasDifference(report([diffTurn(ref, facts(), facts())]))).toBe(false);
    expect(hasDifference(report([diffTurn(ref, facts(), facts({ intent: 'FAQ' }))]))).toBe(true);
    expect(hasDifference(report([skippedTurn(ref, facts())]))).toBe(true);
  });
});

describe('what-if report table', () => {
  it('prints one line per turn, the changes under it, and a summary', () => {
    const report: WhatifReport = {
      config: { version: 'abcdef0123456789', source: 'draft/' },
      conversations: [
        {
          conversationId: ref.conversationId,
          turns: [
            diffTurn({ ...ref, turnNumber: 1, userText: 'hi' }, facts(), facts()),
            diffTurn(ref, facts(), facts({ state: 'REVIEW', rulesFired: ['rule 9 SET_STATE (RulesStep)'] })),
            diffTurn({ ...ref, turnNumber: 3 }, facts(), facts(), [
              { kind: 'model', what: 'INTENT call, prompt sha256 ab' },
            ]),
            skippedTurn({ ...ref, turnNumber: 4 }, facts()),
          ],
        },
      ],
    };
    const lines = formatWhatifReport(report);
    expect(lines[0]).toBe('what-if against config abcdef0123456789 (draft/)');
    expect(lines.join('\n')).toContain('state: "SUBMITTED" → "REVIEW"');
    expect(lines.join('\n')).toContain('rulesFired: - rule 7 SET_STATE (RulesStep)  + rule 9 SET_STATE (RulesStep)');
    expect(lines.join('\n')).toMatch(/3 {5}needs model {5}Looks good/);
    expect(lines.join('\n')).toContain('needs model: INTENT call, prompt sha256 ab');
    expect(lines.at(-1)).toBe('1 conversation(s), 4 turn(s): 1 same, 1 changed, 1 needs model, 1 skipped');
    expect(countByStatus(report)).toMatchObject({ same: 1, changed: 1, 'needs-model': 1, skipped: 1 });
  });

  it("shows a message's and a reply's controls as code points, never obeying them", () => {
    const said = { ...ref, userText: 'my file \u202eexe.txt\r\nplease' };
    const report: WhatifReport = {
      config: { version: 'abcdef0123456789', source: 'current' },
      conversations: [
        { conversationId: ref.conversationId, turns: [diffTurn(said, facts(), facts({ response: 'Done \u202e.' }))] },
      ],
    };
    const lines = formatWhatifReport(report);
    expect(lines[2]).toMatch(/changed {9}my file ⟨U\+202E⟩exe\.txt please$/);
    expect(lines[3]?.trim()).toBe('response: "Done." → "Done ⟨U+202E⟩."');
  });

  it('names the instant --since was read as', () => {
    const report: WhatifReport = {
      config: { version: 'abcdef0123456789', source: 'current' },
      since: '2026-12-01T00:30:00.000Z',
      conversations: [],
    };
    expect(formatWhatifReport(report)[0]).toBe(
      'what-if against config abcdef0123456789 (current), conversations with a turn since 2026-12-01T00:30:00.000Z'
    );
  });
});

describe('what-if report of a turn whose number a later message took (core/whatif/format.ts)', () => {
  it('names the failed message it did not replay, whatever the status', () => {
    const same = { ...diffTurn(ref, facts(), facts()), superseded: ['Can I move my connections within zapper?'] };
    const skipped = { ...skippedTurn({ ...ref, turnNumber: 3 }, facts()), superseded: ['first try'] };
    const report: WhatifReport = {
      config: { version: 'abcdef0123456789', source: 'draft/' },
      conversations: [{ conversationId: ref.conversationId, turns: [same, skipped] }],
    };
    const text = formatWhatifReport(report).join('\n');
    expect(text).toContain(
      'not replayed: "Can I move my connections within zapper?" failed before this message took its turn number'
    );
    expect(text).toContain('not replayed: "first try" failed before this message took its turn number');
    expect(text).toContain('not replayed: an earlier turn needs a recording');
  });
});
