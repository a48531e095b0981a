/**
 * `convengine api` stopped with SIGTERM, as Kubernetes stops a pod: the endpoint's removal reaches the load balancers
 * 1–5 s after the signal, and meanwhile they still open new connections to it. The API refused every new connection
 * the instant the signal came (a rolling update gave 502s). Now /readyz answers 503 at once, every request on a new
 * connection is still served for API_SHUTDOWN_DELAY_MS, and only then does the API close (and exit 0). A Ctrl-C
 * (SIGINT) at a terminal stops it at once, as before.
 */
import http from 'node:http';
import { ConvengineProcess } from '../support/child-processes';
import { workerEnvironment } from '../support/worker-environment';

jest.setTimeout(120_000);

const LISTENING = /API listening on (http:\/\/[\d.:]+)/;

/** One GET on a connection of its own (no keep-alive pool): what a load balancer's new connection sends. */
function getOnNewConnection(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('convengine api, stopped', () => {
  const environment = workerEnvironment();
  const startApi = (delayMs: number) =>
    ConvengineProcess.start(['api'], {
      name: 'api',
      ready: LISTENING,
      env: {
        ...environment(),
        PORT: '0',
        TEMPORAL_TASK_QUEUE: `shutdown-delay-${process.pid}`,
        API_SHUTDOWN_DELAY_MS: String(delayMs),
      },
    });

  it('by SIGTERM: /readyz answers 503 at once, new connections are served for the delay, then it exits 0', async () => {
    const api = await startApi(6_000);
    const url = api.match(LISTENING) as string;
    expect((await getOnNewConnection(`${url}/healthz`)).status).toBe(200);
    const signalled = performance.now();
    api.child.kill('SIGTERM');
    // The signal is handled within milliseconds; /readyz says so, while the API still answers. (It may have been
    // 503 before: no worker polls here.)
    const stopping = JSON.stringify({ status: 'not ready', checks: { api: 'stopping' } });
    let readyz = await getOnNewConnection(`${url}/readyz`);
    while (readyz.body !== stopping && performance.now() - signalled < 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      readyz = await getOnNewConnection(`${url}/readyz`);
    }
    expect(readyz).toEqual({ status: 503, body: stopping });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Well inside the delay, even on a busy machine.
    expect(performance.now() - signalled).toBeLessThan(5_000);
    expect(await getOnNewConnection(`${url}/healthz`)).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(await api.exited).toBe(0);
    expect(performance.now() - signalled).toBeGreaterThanOrEqual(5_900);
    expect(api.tail()).toContain('serving 6000 ms more (API_SHUTDOWN_DELAY_MS)');
    await expect(getOnNewConnection(`${url}/healthz`)).rejects.toThrow();
  });

  it('by SIGINT (a Ctrl-C): at once, whatever the delay', async () => {
    const api = await startApi(60_000);
    const signalled = performance.now();
    api.child.kill('SIGINT');
    expect(await api.exited).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(15_000);
  });
});
