import { buildApi } from '../../api/app';
import { createLogger } from '../../observability/logger';
import { captureLog } from '../support/log-capture';
import { fakePorts } from '../support/fake-ports';

describe("the API's request log lines", () => {
  it('name the query parameters a request came with, and redact every value but plain codes and paging', async () => {
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
    const app = buildApi({ ports: fakePorts({}), logger, messageMaxBytes: 8192 });
    try {
      const url =
        '/api/v1/console/conversations?q=my%20ssn%20is%20123-45-6789&status=RUNNING&q=4111%201111&limit=20&state=a%20b';
      expect((await app.inject({ method: 'GET', url })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
    for (const leaked of ['123-45-6789', '4111', 'ssn']) expect(log.raw()).not.toContain(leaked);
    const incoming = log.lines().find((line) => line['msg'] === 'incoming request');
    expect(incoming?.['req']).toEqual({
      method: 'GET',
      url: '/api/v1/console/conversations?q=[redacted]&status=RUNNING&q=[redacted]&limit=20&state=a%20b',
      host: 'localhost:80',
      remoteAddress: '127.0.0.1',
    });
  });

  // Config validation takes any code that is not blank and can be stored: `straße_zustand` was logged [redacted].
  it.each([
    ['a code in any script', 'intent=stra%C3%9Fe_zustand&state=%C3%87IKI%C5%9E', 'intent=straße_zustand&state=ÇIKIŞ'],
    ['what would end a value in a URL, percent-encoded', 'intent=A%26B%3DC%23D%2BE', 'intent=A%26B%3DC%23D%2BE'],
    [
      'what no one would see, as its code point',
      'intent=RE%E2%80%AEFUND&state=OK%E2%80%8B%F3%A0%81%A8',
      'intent=RE⟨U+202E⟩FUND&state=OK⟨U+200B⟩⟨U+E0068⟩',
    ],
    [
      'no code a filter refuses: a control character, a blank one, one over 100 characters',
      `intent=A%07B&state=%20&intent=${'A'.repeat(101)}`,
      'intent=[redacted]&state=[redacted]&intent=[redacted]',
    ],
  ])('show intent and state codes as written: %s', async (_what, query, shown) => {
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
    const app = buildApi({ ports: fakePorts({}), logger, messageMaxBytes: 8192 });
    try {
      await app.inject({ method: 'GET', url: `/api/v1/console/conversations?${query}` });
    } finally {
      await app.close();
    }
    const incoming = log.lines().find((line) => line['msg'] === 'incoming request');
    expect(incoming?.['req']).toMatchObject({ url: `/api/v1/console/conversations?${shown}` });
    expect(log.raw()).not.toMatch(/[\u200b\u202e\u{e0068}]/u);
  });

  it('keep a plain path as it is', async () => {
    const log = captureLog();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: log.stream });
    const app = buildApi({ ports: fakePorts({}), logger, messageMaxBytes: 8192 });
    try {
      await app.inject({ method: 'GET', url: '/api/v1/conversation/abc' });
    } finally {
      await app.close();
    }
    const incoming = log.lines().find((line) => line['msg'] === 'incoming request');
    expect(incoming?.['req']).toMatchObject({ method: 'GET', url: '/api/v1/conversation/abc' });
  });
});
