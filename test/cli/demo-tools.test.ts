/**
 * `convengine demo-tools` runs on its own the demo tool server `convengine start` embeds (docker-compose's demo-tools
 * service): the order API takes the key CONVENGINE_TOOL_DEMO_API_KEY names, the one the worker's tools send.
 */
import { ConvengineProcess } from '../support/child-processes';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(60_000);

describe('convengine demo-tools', () => {
  let proc: ConvengineProcess | undefined;
  afterAll(async () => proc?.stop());

  it('serves the demo routes, the order API with the configured key, and stops on SIGTERM', async () => {
    proc = await ConvengineProcess.start(['demo-tools', '--port', '0'], {
      name: 'demo-tools',
      env: { CONVENGINE_TOOL_DEMO_API_KEY: 'compose-key', LOG_FORMAT: 'json' },
      ready: /demo tool server listening at http:\/\/127\.0\.0\.1:\d+/,
    });
    const baseUrl = proc.match(/listening at (http:\/\/127\.0\.0\.1:\d+)/);
    const status = (key: string) =>
      fetch(`${baseUrl}/orders/status?orderId=O-1`, { headers: { 'X-API-KEY': key } }).then((r) => r.status);
    expect(await status('compose-key')).toBe(200);
    expect(await status('demo-order-api-key')).toBe(401);
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });

  it.each([
    [['--port', '99999'], '--port expects a number from 0 to 65535'],
    [['--host', ''], '--host needs a value'],
    [['extra'], 'demo-tools: unexpected argument(s): extra'],
  ])('%j exits 2 with "%s" and the synopsis', async (args, message) => {
    const run = await runConvengine(['demo-tools', ...args], {}, 30_000);
    expect({ code: run.code, first: run.stderr.split('\n')[0] }).toEqual({ code: 2, first: message });
  });
});
