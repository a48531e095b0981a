import { buildApi } from '../../api/app';
import type { ApiPorts } from '../../api/ports';
import { createLogger } from '../../observability/logger';
import { fakePorts } from '../support/fake-ports';
import { captureLog } from '../support/log-capture';

/** Text an unexpected error may quote from what the caller sent (a value echoed back by a driver or a library). */
const USER_TEXT = 'ORD-SECRET-7';
const CONVERSATION = '3c9a1f0e-2b4d-4e6f-8a7b-9c0d1e2f3a4b';

/** The error line the API writes when the conversation read throws `err`, keys set or not. */
async function errorLine(err: Error, withoutFailureText: boolean) {
  const log = captureLog();
  const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
  const base = fakePorts({});
  const ports: ApiPorts = {
    ...base,
    conversations: { ...base.conversations, conversation: () => Promise.reject(err) },
  };
  const app = buildApi({ ports, logger, messageMaxBytes: 8192, withoutFailureText });
  try {
    const response = await app.inject({ method: 'GET', url: `/api/v1/conversation/${CONVERSATION}` });
    const line = log.lines().find((l) => l['level'] === 'error');
    return { status: response.statusCode, line, raw: log.raw() };
  } finally {
    await app.close();
  }
}

const unexpected = () =>
  new TypeError(`Cannot read properties of "${USER_TEXT}"`, { cause: new Error(`upstream said ${USER_TEXT}`) });
/** A lost database connection, as pg raises a new client's connect timeout, its cause quoting what it was sent. */
const unreachable = () =>
  new Error('Connection terminated due to connection timeout', {
    cause: Object.assign(new Error(`read ECONNRESET after ${USER_TEXT}`), { code: 'ECONNRESET' }),
  });

describe("the API's error lines (api/error-handler.ts)", () => {
  it('with payload encryption keys, an unexpected error is logged by its outline, never its message or stack', async () => {
    const { status, line, raw } = await errorLine(unexpected(), true);
    expect(status).toBe(500);
    expect(raw).not.toContain(USER_TEXT);
    expect(line).toMatchObject({ msg: 'unhandled error', err: { type: 'TypeError', cause: { type: 'Error' } } });
    expect(JSON.stringify(line)).not.toContain('"stack"');
  });

  it("with payload encryption keys, a 503's database line keeps the outline with the driver's code", async () => {
    const { status, line, raw } = await errorLine(unreachable(), true);
    expect(status).toBe(503);
    expect(raw).not.toContain(USER_TEXT);
    expect(line).toMatchObject({
      msg: 'database unreachable',
      err: { type: 'Error', cause: { type: 'Error', code: 'ECONNRESET' } },
    });
  });

  it('without keys, logs the error whole as before', async () => {
    for (const [err, msg] of [
      [unexpected(), 'unhandled error'],
      [unreachable(), 'database unreachable'],
    ] as const) {
      const { line } = await errorLine(err, false);
      expect(line).toMatchObject({
        msg,
        err: { message: expect.stringContaining(USER_TEXT), stack: expect.any(String) },
      });
    }
  });
});
