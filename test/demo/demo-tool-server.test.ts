import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../demo/tool-server';
import { DemoCounters, REMEMBERED_WRITE_KEYS } from '../../demo/tool-server-faults';

let server: DemoToolServer;
beforeAll(async () => {
  server = await startDemoToolServer();
});
afterAll(async () => server.stop());
beforeEach(() => {
  server.faults.clear();
  server.counters.reset();
});

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.baseUrl}${path}`, { headers });
  return { status: res.status, body: await res.json() };
}

async function submit(key: string | null): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (key) headers['Idempotency-Key'] = key;
  const res = await fetch(`${server.baseUrl}/loan/applications`, {
    method: 'POST',
    headers,
    body: '{"customerId":"C1"}',
  });
  return { status: res.status, body: await res.json() };
}

describe('demo tool server', () => {
  it('answers the loan routes by customer id', async () => {
    expect((await get('/loan/credit-rating?customerId=C1')).body).toEqual({ customerId: 'C1', creditRating: 782 });
    expect((await get('/loan/credit-rating?customerId=C-LOW-1')).body).toEqual({
      customerId: 'C-LOW-1',
      creditRating: 640,
    });
    expect((await get('/loan/fraud-check?customerId=C-FRAUD')).body).toEqual({ customerId: 'C-FRAUD', flagged: true });
    expect((await get('/loan/debt-summary?customerId=C1')).body).toEqual({
      customerId: 'C1',
      dti: 0.31,
      availableCredit: 220000,
    });
    expect((await get('/loan/debt-summary?customerId=C-DEBT')).body).toMatchObject({ dti: 0.72 });
  });

  it('applies a submitted application once per Idempotency-Key and counts every effect', async () => {
    expect(await submit('k-1')).toEqual({ status: 201, body: { applicationId: 'LA-90311', status: 'SUBMITTED' } });
    await submit('k-1');
    await submit('k-2');
    await submit(null);
    await submit(null);
    expect(server.counters.writeEffects('k-1')).toBe(1);
    expect(server.counters.writeEffects('k-2')).toBe(1);
    expect(server.counters.writeEffects('(no key)')).toBe(2);
    expect(server.counters.totalWriteEffects()).toBe(4);
    expect(server.counters.requests('/loan/applications')).toBe(5);
  });

  it('forgets the oldest write keys past REMEMBERED_WRITE_KEYS, a repeated key counting as recent', () => {
    const counters = new DemoCounters();
    counters.applyWrite('first');
    for (let i = 1; i < REMEMBERED_WRITE_KEYS; i++) counters.applyWrite(`k-${i}`);
    counters.applyWrite('first');
    counters.applyWrite('newest');
    // REMEMBERED_WRITE_KEYS keys are left, and 'first' took effect twice.
    expect(counters.totalWriteEffects()).toBe(REMEMBERED_WRITE_KEYS + 1);
    expect(counters.writeEffects('first')).toBe(2);
    expect(counters.writeEffects('k-1')).toBe(0);
    expect(counters.writeEffects('k-2')).toBe(1);
    expect(counters.writeEffects('newest')).toBe(1);
  });

  it('checks the order API key', async () => {
    expect((await get('/orders/status?orderId=ORD-1')).status).toBe(401);
    expect(await get('/orders/status?orderId=ORD-1', { 'X-API-KEY': DEMO_API_KEY })).toEqual({
      status: 200,
      body: { orderId: 'ORD-1', status: 'SUBMITTED' },
    });
    expect((await get('/orders/async-trace?orderId=ORD-1')).body).toEqual({ orderId: 'ORD-1', callbackAt: null });
  });

  it('injects failures: N times, flapping, and clears them', async () => {
    server.faults.set('/orders/async-trace', { failTimes: 2, status: 502 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get('/orders/async-trace?orderId=X')).status);
    expect(statuses).toEqual([502, 502, 200]);
    server.faults.set('/orders/async-trace', { flap: true, status: 503 });
    const flapping = [];
    for (let i = 0; i < 4; i++) flapping.push((await get('/orders/async-trace?orderId=X')).status);
    expect(flapping).toEqual([503, 200, 503, 200]);
    server.faults.clear();
    expect((await get('/orders/async-trace?orderId=X')).status).toBe(200);
    expect((await get('/nowhere')).status).toBe(404);
  });
});
