import {
  conversationTurnsQuery,
  readTurnSearchAttributes,
  runningTurnsQuery,
  TURN_SEARCH_ATTRIBUTES,
  TurnOutcomeValue,
  TurnSearchAttribute,
} from '../../workflows/search-attributes';
import { TurnStatus } from '../../workflows/messages';
import { parseVisibilityQuery } from '../../devserver/engine/visibility-query';

describe('turn search attributes', () => {
  it('reads a describe/list result, where every attribute is an array of values', () => {
    const described = {
      ConversationId: ['c-1'],
      TurnNumber: [3],
      Intent: ['LOAN'],
      State: ['COLLECT'],
      TurnOutcome: ['HELD'],
      ConfigVersion: ['87f1'],
      BuildIds: ['unrelated'],
    };
    expect(readTurnSearchAttributes(described)).toEqual({
      conversationId: 'c-1',
      turnNumber: 3,
      intent: 'LOAN',
      state: 'COLLECT',
      turnOutcome: TurnOutcomeValue.Held,
      configVersion: '87f1',
    });
  });

  it('reads history upserts, where each attribute is its value', () => {
    expect(readTurnSearchAttributes({ TurnOutcome: 'ANSWERED', ConfigVersion: 'abc' })).toEqual({
      turnOutcome: 'ANSWERED',
      configVersion: 'abc',
    });
  });

  it('leaves out what is absent, of the wrong type or an outcome it does not know', () => {
    const hostile = {
      ConversationId: [42],
      TurnNumber: ['3'],
      Intent: null,
      State: [],
      TurnOutcome: ['DELETED_EVERYTHING'],
      ConfigVersion: { nested: 'x' },
    };
    expect(readTurnSearchAttributes(hostile)).toEqual({});
    expect(readTurnSearchAttributes({ TurnNumber: 1.5 })).toEqual({});
    expect(readTurnSearchAttributes({})).toEqual({});
  });

  it('knows every outcome a turn can leave: its result outcomes, and RUNNING and HELD while it runs', () => {
    for (const value of Object.values(TurnOutcomeValue)) {
      expect(readTurnSearchAttributes({ TurnOutcome: [value] }).turnOutcome).toBe(value);
    }
    // The statuses a parked turn puts in TurnOutcome are the same strings as its progress status.
    expect(TurnOutcomeValue.Held).toBe(TurnStatus.Held);
    expect(TurnOutcomeValue.AwaitingApproval).toBe(TurnStatus.AwaitingApproval);
    expect(TurnOutcomeValue.Running).toBe(TurnStatus.Running);
  });

  it('registers exactly the names it reads', () => {
    expect(Object.keys(TURN_SEARCH_ATTRIBUTES).sort()).toEqual(Object.values(TurnSearchAttribute).sort());
  });

  it('builds visibility queries from the names and values, quoting what it is given', () => {
    const running = "ExecutionStatus = 'Running' AND TaskQueue = 'turns-a'";
    expect(runningTurnsQuery('turns-a', TurnOutcomeValue.AwaitingApproval)).toBe(
      `TurnOutcome = 'AWAITING_APPROVAL' AND ${running}`
    );
    expect(runningTurnsQuery('turns-a', TurnOutcomeValue.Held)).toBe(`TurnOutcome = 'HELD' AND ${running}`);
    expect(runningTurnsQuery('turns-a', TurnOutcomeValue.AwaitingApproval, TurnOutcomeValue.Held)).toBe(
      `TurnOutcome IN ('AWAITING_APPROVAL', 'HELD') AND ${running}`
    );
    expect(runningTurnsQuery("q' OR 'a", TurnOutcomeValue.Held)).toBe(
      "TurnOutcome = 'HELD' AND ExecutionStatus = 'Running' AND TaskQueue = 'q\\' OR \\'a'"
    );
    expect(conversationTurnsQuery('0b6c-1')).toBe("ConversationId = '0b6c-1'");
    expect(conversationTurnsQuery('0b6c-1', { after: 50, through: 100 })).toBe(
      "ConversationId = '0b6c-1' AND TurnNumber > 50 AND TurnNumber <= 100"
    );
    expect(conversationTurnsQuery('0b6c-1', { after: 100 })).toBe("ConversationId = '0b6c-1' AND TurnNumber > 100");
    expect(() => conversationTurnsQuery('0b6c-1', { after: 0, through: Number.NaN })).toThrow('integers');
    expect(conversationTurnsQuery("x' OR TurnNumber > 0 OR 'a\\")).toBe(
      "ConversationId = 'x\\' OR TurnNumber > 0 OR \\'a\\\\'"
    );
    // A server reads the escaped literal back as the one value it was given.
    const hostile = "x' OR TurnNumber > 0 OR 'a\\";
    expect(parseVisibilityQuery(conversationTurnsQuery(hostile)).filter).toEqual({
      kind: 'compare',
      field: 'ConversationId',
      operator: '=',
      value: hostile,
    });
  });
});
