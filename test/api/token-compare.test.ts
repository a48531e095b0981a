/**
 * The bearer token's comparison (api/auth.ts) tells nothing of the token by its time: a comparison that returned
 * early on a length that differs would tell a caller, by how fast a 401 comes, how long the token is.
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
const CONVERSATION = '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b';
/** A guarded route (readiness and liveness are open). */
const GUARDED = `/api/v1/conversation/audit/${CONVERSATION}`;
const compare = timingSafeEqual as jest.MockedFunction<typeof timingSafeEqual>;
const app = buildApi({
  ports: fakePorts({ conversationId: CONVERSATION, audits: async () => [] }),
  apiToken: TOKEN,
  messageMaxBytes: 8192,
  logLevel: 'silent',
});
afterAll(async () => app.close());

it.each([
  ['shorter', 's3cret', 401],
  ['longer', `${TOKEN}${'x'.repeat(100)}`, 401],
  ['same length, another', 's3cret-tokex', 401],
  ['right', TOKEN, 200],
])('a %s token is compared whole, as two digests of one length', async (_name, sent, status) => {
  compare.mockClear();
  const res = await app.inject({ method: 'GET', url: GUARDED, headers: { authorization: `Bearer ${sent}` } });
  expect(res.statusCode).toBe(status);
  expect(compare).toHaveBeenCalledTimes(1);
  const [a, b] = compare.mock.calls[0] as unknown as [Buffer, Buffer];
  expect([a.length, b.length]).toEqual([32, 32]);
  // Digests, not the texts themselves.
  expect([a.includes(Buffer.from(sent)), b.includes(Buffer.from(TOKEN))]).toEqual([false, false]);
});
