/** The dev server's visibility query parser (no server needed). */
import { parseVisibilityQuery, referencedFields } from '../../devserver/engine/visibility-query';

test('AND binds tighter than OR, parentheses override, NOT negates', () => {
  expect(parseVisibilityQuery(`A = 'x' OR B = 1 AND C = 2`).filter).toMatchObject({
    kind: 'or',
    left: { kind: 'compare', field: 'A' },
    right: { kind: 'and', left: { field: 'B' }, right: { field: 'C' } },
  });
  expect(parseVisibilityQuery(`(A = 'x' OR B = 1) AND NOT C = 2`).filter).toMatchObject({
    kind: 'and',
    left: { kind: 'or' },
    right: { kind: 'not', operand: { kind: 'compare', field: 'C' } },
  });
});

test('IN, NOT IN, BETWEEN, IS NULL, STARTS_WITH, <> and quoted values', () => {
  const parsed = parseVisibilityQuery(
    `WorkflowType IN ('a', "b") AND X NOT IN (1, 2) AND StartTime BETWEEN '2024-01-01T00:00:00Z' AND '2025-01-01T00:00:00Z' ` +
      `AND Y IS NOT NULL AND WorkflowId STARTS_WITH 'order-' AND Z <> 'it''s'`
  );
  expect(referencedFields(parsed)).toEqual(['WorkflowType', 'X', 'StartTime', 'Y', 'WorkflowId', 'Z']);
  expect(JSON.stringify(parsed.filter)).toContain(`"value":"it's"`);
  expect(JSON.stringify(parsed.filter)).toContain('"negated":true');
});

test('ORDER BY and GROUP BY clauses', () => {
  expect(parseVisibilityQuery(`WorkflowId = 'a' ORDER BY StartTime DESC, WorkflowId`).orderBy).toEqual([
    { field: 'StartTime', descending: true },
    { field: 'WorkflowId', descending: false },
  ]);
  expect(parseVisibilityQuery(`GROUP BY ExecutionStatus`).groupBy).toBe('ExecutionStatus');
  expect(parseVisibilityQuery('').filter).toBeUndefined();
});

test.each([`A =`, `A = 'unterminated`, `A ~ 1`, `(A = 1`, `A = 1 B = 2`, `AND = 1`, `A BETWEEN 1`])(
  'rejects %s with INVALID_ARGUMENT',
  (query) => {
    expect(() => parseVisibilityQuery(query)).toThrow(expect.objectContaining({ type: 'INVALID_ARGUMENT' }));
  }
);
