/**
 * POST /conversation/message holds its client's socket until the turn answers: 250 clients at once under
 * `ulimit -n 256` ran the process out of file descriptors, and it aborted. Now at most MESSAGE_MAX_CONCURRENT are
 * answered at once per API process; one more gets 503 TOO_MANY_MESSAGES with Retry-After, before any work, its
 * connection closed; the others complete.
 */
import { buildApi } from '../../../api/app';
import type { TurnReply, TurnRequest } from '../../../api/ports';
import { createApiMetrics } from '../../../observability/metrics';
import { fakePorts } from '../../support/fake-ports';
import { parseMetrics, sumOf } from '../../support/prometheus-text';

const running = (request: TurnRequest): TurnReply => ({
  kind: 'RUNNING',
  ref: { conversationId: request.conversationId, turnNumber: 1, workflowId: 'turn', runId: 'run' },
  reason: 'REPLY_TIMEOUT',
  intent: 'UNKNOWN',
  state: 'UNKNOWN',
});

describe('POST /conversation/message beyond MESSAGE_MAX_CONCURRENT', () => {
  it('refuses the one too many with 503 TOO_MANY_MESSAGES and Retry-After, while the others complete', async () => {
    const sent: TurnRequest[] = [];
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const ports = fakePorts({});
    ports.turns.sendMessage = async (request) => {
      sent.push(request);
      await answered;
      return running(request);
    };
    const metrics = createApiMetrics();
    const limitMetrics = { inUse: metrics.limitInUse, refused: metrics.limitRefused };
    const app = buildApi({ ports, messageMaxBytes: 8192, logLevel: 'silent', messageMaxConcurrent: 2, limitMetrics });
    const message = (text: string) =>
      app.inject({ method: 'POST', url: '/api/v1/conversation/message', payload: { message: text } });
    try {
      const first = message('one');
      const second = message('two');
      while (sent.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      const refused = await message('three');
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('2');
      expect(refused.headers['connection']).toBe('close');
      expect(refused.json()).toEqual({
        error: {
          code: 'TOO_MANY_MESSAGES',
          message:
            '2 messages are being answered by this API process (at most 2); send it again after Retry-After seconds.',
        },
      });
      expect(sent.map((r) => r.message)).toEqual(['one', 'two']);
      const limit = async (name: string) =>
        sumOf(parseMetrics(await metrics.registry.metrics()), name, { limit: 'messages' });
      expect(await limit('convengine_api_limit_in_use')).toBe(2);
      expect(await limit('convengine_api_limit_refused_total')).toBe(1);

      answer();
      expect([(await first).statusCode, (await second).statusCode]).toEqual([202, 202]);
      expect(await limit('convengine_api_limit_in_use')).toBe(0);
      // The slots are free again.
      expect((await message('four')).statusCode).toBe(202);
    } finally {
      await app.close();
    }
  });
});
