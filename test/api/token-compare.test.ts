/**
 * The bearer tokens' comparison (api/auth.ts) tells nothing of the tokens by its time: a comparison that returned
 * early on a length that differs would tell a caller, by how fast a 401 comes, how long a token is; one that stopped
 * at the first token it matched, or compared with the operator's token only when one is set, would tell which token
 * was sent, or whether OPERATOR_API_TOKEN is set.
 */
import type * as crypto from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import { buildApi } from '../../api/app';
import { fakePorts } from '../support/fake-ports';

jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof crypto>('node:crypto');
  return { ...actual, timingSafeEqual: jest.fn(actual.timingSafeEqual) };
});

const TOKEN = 's3cret-token';
const OPERATOR = 'operator-s3cret';
const CONVERSATION = '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b';
/** An operator's route, which only the operator's token reaches when it is set. */
const GUARDED = `/api/v1/conversation/audit/${CONVERSATION}`;
const compare = timingSafeEqual as jest.MockedFunction<typeof timingSafeEqual>;
const apiWith = (operatorToken?: string) =>
  buildApi({
    ports: fakePorts({ conversationId: CONVERSATION, audits: async () => [] }),
    apiToken: TOKEN,
    ...(operatorToken ? { operatorToken } : {}),
    messageMaxBytes: 8192,
    logLevel: 'silent',
  });
const single = apiWith();
const split = apiWith(OPERATOR);
afterAll(async () => Promise.all([single.close(), split.close()]));

it.each([
  ['API_TOKEN alone', 'shorter', 's3cret', 401, single],
  ['API_TOKEN alone', 'longer', `${TOKEN}${'x'.repeat(100)}`, 401, single],
  ['API_TOKEN alone', 'same length, another', 's3cret-tokex', 401, single],
  ['API_TOKEN alone', 'the operator token of another API', OPERATOR, 401, single],
  ['API_TOKEN alone', 'right', TOKEN, 200, single],
  ['both tokens', 'shorter', 's3cret', 401, split],
  ['both tokens', 'longer', `${OPERATOR}${'x'.repeat(100)}`, 401, split],
  ['both tokens', 'same length, another', 'operator-s3crex', 401, split],
  ['both tokens', 'gateway', TOKEN, 403, split],
  ['both tokens', 'operator', OPERATOR, 200, split],
])(
  '%s: the token sent (%s) is compared whole with both tokens, as digests of one length',
  async (_set, _name, sent, status, app) => {
    compare.mockClear();
    const res = await app.inject({ method: 'GET', url: GUARDED, headers: { authorization: `Bearer ${sent}` } });
    expect(res.statusCode).toBe(status);
    // Two comparisons every time, whichever token was sent and whether an operator token is set.
    expect(compare).toHaveBeenCalledTimes(2);
    const pairs = compare.mock.calls as unknown as [Buffer, Buffer][];
    expect(pairs.flat().map((digest) => digest.length)).toEqual([32, 32, 32, 32]);
    // The token sent is digested once, and compared with each token's digest, never with the texts themselves.
    const [[sentFirst, gateway], [sentSecond, operator]] = pairs as [[Buffer, Buffer], [Buffer, Buffer]];
    expect(sentFirst.equals(sentSecond)).toBe(true);
    expect(gateway.equals(operator)).toBe(false);
    for (const text of [sent, TOKEN, OPERATOR]) {
      expect(pairs.flat().some((digest) => digest.includes(Buffer.from(text)))).toBe(false);
    }
  }
);
