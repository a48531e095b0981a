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
    for (const leaked of ['123-45-6789', '4111', 'ssn', 'a b', 'a%20b']) expect(log.raw()).not.toContain(leaked);
    const incoming = log.lines().find((line) => line['msg'] === 'incoming request');
    expect(incoming?.['req']).toEqual({
      method: 'GET',
      url: '/api/v1/console/conversations?q=[redacted]&status=RUNNING&q=[redacted]&limit=20&state=[redacted]',
      host: 'localhost:80',
      remoteAddress: '127.0.0.1',
    });
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
