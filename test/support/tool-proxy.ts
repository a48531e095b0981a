import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback pass-through in front of the demo tool server, one per worker process: the worker's
 * CONVENGINE_TOOL_DEMO_URL points at its own proxy, so a test knows which worker sent a tool
 * request (and can SIGKILL exactly the worker that holds an in-flight tool call).
 */
export interface ToolProxy {
  baseUrl: string;
  /** Paths of the requests that came through, in arrival order. */
  readonly routes: string[];
  stop(): Promise<void>;
}

export async function startToolProxy(targetBaseUrl: string): Promise<ToolProxy> {
  const routes: string[] = [];
  const server = http.createServer((req, res) => {
    routes.push(new URL(req.url ?? '/', 'http://proxy').pathname);
    const upstream = http.request(
      new URL(req.url ?? '/', targetBaseUrl),
      { method: req.method, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      }
    );
    upstream.on('error', () => res.destroy());
    // The worker went away (killed): drop the upstream call too, like a dead client would.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    routes,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
