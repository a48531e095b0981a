import { refusedUpdate } from '../../api/errors';

/** A turn's update validator says "CODE: why": bad input is the caller's 400, a state conflict 409. */
describe('refusedUpdate', () => {
  it.each([
    ['INVALID_TEXT: reason contains a NUL character.', 400, 'INVALID_TEXT'],
    ['TOO_DEEP: result is nested deeper than 16 levels.', 400, 'TOO_DEEP'],
    ['INVALID_DECISION: action must be one of retry, skip, fail, markDone.', 400, 'INVALID_DECISION'],
    ['RESULT_TOO_LARGE: result must be at most 16384 bytes of JSON (got 20000).', 400, 'RESULT_TOO_LARGE'],
    ['REASON_TOO_LONG: reason must be at most 2000 characters (got 2001).', 400, 'REASON_TOO_LONG'],
    ['RESULT_NOT_ALLOWED: Only markDone takes a result, not retry.', 400, 'RESULT_NOT_ALLOWED'],
    ['STALE_DECISION: the held call is #2, not #9.', 409, 'STALE_DECISION'],
    ['something without a code', 409, 'DECISION_REFUSED'],
  ])('%s → %i %s', (text, statusCode, code) => {
    expect(refusedUpdate(text, 'DECISION_REFUSED')).toMatchObject({ statusCode, code });
  });
});
