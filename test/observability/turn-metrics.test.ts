import { Histogram, Registry } from 'prom-client';
import { conflict } from '../../api/errors';
import type { TurnGateway } from '../../api/ports';
import { meteredTurnGateway } from '../../observability/turn-metrics';

/** convengine_turn_duration_seconds counts turns: a request refused before any turn ran is not one. */
describe('meteredTurnGateway', () => {
  async function countsAfter(failure: Error): Promise<Record<string, number>> {
    const registry = new Registry();
    const histogram = new Histogram({ name: 'turns', help: 'h', labelNames: ['outcome'], registers: [registry] });
    const refuse = async () => Promise.reject(failure);
    const gateway: TurnGateway = { sendMessage: refuse, decideApproval: refuse, retryTurn: refuse };
    const metered = meteredTurnGateway(gateway, histogram);
    await expect(metered.decideApproval('c', 1, { decision: 'approve' })).rejects.toBe(failure);
    await expect(metered.retryTurn('turn-c-1')).rejects.toBe(failure);
    const counts = (await histogram.get()).values.filter((v) => v.metricName === 'turns_count');
    return Object.fromEntries(counts.map((v) => [String(v.labels['outcome']), v.value]));
  }

  it('does not count a 4xx refusal (a stale approval, a turn still running) as a turn', async () => {
    expect(await countsAfter(conflict('STALE_DECISION', 'the pending call is #4'))).toEqual({});
  });

  it('counts a server-side failure as ERROR', async () => {
    expect(await countsAfter(new Error('Temporal unreachable'))).toEqual({ ERROR: 2 });
  });
});
