import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DemoCounters, FaultRegistry, type FaultDecision } from './tool-server-faults';

/**
 * Loopback HTTP server standing in for the business APIs of the demo config (loan and order
 * tools). Tests, the e2e demo and `convengine start` point HTTP tool rows at it. Faults can be
 * injected per route (fail N times, delay, flap, apply a write and then time out) and every
 * request is counted, so retry, timeout, circuit-breaker and idempotency behaviour can be proven.
 */
export { type RouteFault } from './tool-server-faults';

export const DEMO_API_KEY = 'demo-order-api-key';

export interface DemoToolServerOptions {
  port?: number;
  /** Interface to listen on (default 127.0.0.1); `convengine demo-tools` in a container sets 0.0.0.0. */
  host?: string;
  /** API key /orders/status expects in the X-API-KEY header. */
  apiKey?: string;
  /**
   * How many of the latest requests `counters.log` keeps (default: all, which tests read). `convengine start`
   * sets it: its server runs for long, and each logged request holds its headers and body.
   */
  keptRequests?: number;
}

export interface DemoToolServer {
  baseUrl: string;
  faults: FaultRegistry;
  counters: DemoCounters;
  stop(): Promise<void>;
}

interface DemoRequest {
  method: string;
  route: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface DemoReply {
  status: number;
  json: unknown;
}

function id(query: URLSearchParams, name: string): string {
  return query.get(name) ?? '';
}

function loanRoute(req: DemoRequest): DemoReply | null {
  const customerId = id(req.query, 'customerId');
  const upper = customerId.toUpperCase();
  if (req.method === 'GET' && req.route === '/loan/credit-rating') {
    return { status: 200, json: { customerId, creditRating: upper.includes('LOW') ? 640 : 782 } };
  }
  if (req.method === 'GET' && req.route === '/loan/fraud-check') {
    return { status: 200, json: { customerId, flagged: upper.includes('FRAUD') } };
  }
  if (req.method === 'GET' && req.route === '/loan/debt-summary') {
    const poor = upper.includes('DEBT');
    return { status: 200, json: { customerId, dti: poor ? 0.72 : 0.31, availableCredit: poor ? 5000 : 220000 } };
  }
  return null;
}

function orderRoute(req: DemoRequest, apiKey: string): DemoReply | null {
  const orderId = id(req.query, 'orderId');
  if (req.method === 'GET' && req.route === '/orders/status') {
    if (req.headers['x-api-key'] !== apiKey) return { status: 401, json: { error: 'missing or wrong X-API-KEY' } };
    return { status: 200, json: { orderId, status: 'SUBMITTED' } };
  }
  if (req.method === 'GET' && req.route === '/orders/async-trace') {
    return { status: 200, json: { orderId, callbackAt: null } };
  }
  return null;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, reply: DemoReply, delayMs: number, retryAfter?: string): void {
  const write = (): void => {
    if (res.destroyed) return;
    res.writeHead(reply.status, {
      'Content-Type': 'application/json',
      ...(retryAfter ? { 'Retry-After': retryAfter } : {}),
    });
    res.end(JSON.stringify(reply.json));
  };
  if (delayMs > 0) setTimeout(write, delayMs);
  else write();
}

class DemoHandler {
  constructor(
    private readonly faults: FaultRegistry,
    private readonly counters: DemoCounters,
    private readonly apiKey: string
  ) {}

  async handle(raw: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(raw.url ?? '/', 'http://localhost');
    const req: DemoRequest = {
      method: raw.method ?? 'GET',
      route: url.pathname,
      query: url.searchParams,
      headers: raw.headers,
      body: await readBody(raw),
    };
    const seq = this.counters.record(req.route, req.method, Object.fromEntries(req.query), req.headers, req.body);
    // A client that hangs up before the answer (a cancelled tool call, a timeout) is counted: tests prove the abort.
    res.on('close', () => {
      if (!res.writableFinished) this.counters.hungUp(req.route, seq);
    });
    const fault = this.faults.next(req.route);
    if (fault.failWith !== null)
      return send(
        res,
        { status: fault.failWith, json: { error: 'injected failure' } },
        fault.delayMs,
        fault.retryAfter
      );
    if (req.method === 'POST' && req.route === '/loan/applications') return this.submit(req, res, fault);
    if (req.route === '/health') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return void res.end('ok');
    }
    const reply = loanRoute(req) ??
      orderRoute(req, this.apiKey) ?? { status: 404, json: { error: `no route ${req.method} ${req.route}` } };
    send(res, reply, fault.delayMs);
  }

  /** A write: applied once per Idempotency-Key; a repeat with the same key gets the same answer. */
  private submit(req: DemoRequest, res: http.ServerResponse, fault: FaultDecision): void {
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    const reply: DemoReply = { status: 201, json: { applicationId: 'LA-90311', status: 'SUBMITTED' } };
    if (key === null || !this.counters.wasApplied(key)) this.counters.applyWrite(key ?? '(no key)');
    send(res, reply, fault.delayMs);
  }
}

export async function startDemoToolServer(options: DemoToolServerOptions = {}): Promise<DemoToolServer> {
  const faults = new FaultRegistry();
  const counters = new DemoCounters(options.keptRequests);
  const handler = new DemoHandler(faults, counters, options.apiKey ?? DEMO_API_KEY);
  const server = http.createServer((req, res) => {
    handler.handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    faults,
    counters,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
