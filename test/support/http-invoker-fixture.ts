import { CircuitRegistry } from '../../activities/tools/http/circuit';
import type { HttpInvokerDeps, HttpToolInvocation } from '../../activities/tools/http/invoker';
import type { McpHttpToolRow } from '../../core/config/tool-rows';
import type { JsonObject } from '../../core/json';
import { httpTool } from '../../db/seed/builders';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../demo/tool-server';

export const env = {
  CONVENGINE_TOOL_ORDER_KEY: DEMO_API_KEY,
  CONVENGINE_TOOL_TOKEN: 't0k3n',
  CONVENGINE_TOOL_TENANT: 'acme',
};
const ctx = { conversationId: 'c-1', turnNumber: 4, userId: 'u-9', tenantId: 't-2' };

/**
 * The demo tool server of a test file: started before its tests, its faults and counters cleared before each.
 * Read through getters, as it starts only in beforeAll. Call it at the top of the file.
 */
function useDemoToolServer(): DemoToolServer {
  let started: DemoToolServer | null = null;
  const live = (): DemoToolServer => {
    if (!started) throw new Error('the demo tool server has not started (useDemoToolServer starts it in beforeAll)');
    return started;
  };
  beforeAll(async () => {
    started = await startDemoToolServer();
  });
  afterAll(async () => live().stop());
  beforeEach(() => {
    live().faults.clear();
    live().counters.reset();
  });
  return {
    get baseUrl() {
      return live().baseUrl;
    },
    get faults() {
      return live().faults;
    },
    get counters() {
      return live().counters;
    },
    stop: () => live().stop(),
  };
}

/** The demo tool server, and an HTTP tool row calling it (`/orders/async-trace`, quick backoff) with `extra` over it. */
export function useHttpInvokerFixture(): {
  server: DemoToolServer;
  row: (extra: Partial<McpHttpToolRow>) => McpHttpToolRow;
} {
  const server = useDemoToolServer();
  const row = (extra: Partial<McpHttpToolRow>): McpHttpToolRow =>
    httpTool({
      toolId: 1,
      urlTemplate: `${server.baseUrl}/orders/async-trace`,
      initialBackoffMs: 1,
      maxBackoffMs: 5,
      ...extra,
    });
  return { server, row };
}

export function deps(extra: Partial<HttpInvokerDeps> = {}): HttpInvokerDeps {
  return { circuits: new CircuitRegistry(), env, ...extra };
}

let calls = 0;
/** A new tool call each time (its own call id), unless `callId` names the call this is an activity retry of. */
export function call(
  r: McpHttpToolRow,
  args: JsonObject = {},
  idempotencyKey: string | null = null,
  callId = `turn-c-1-4/tool/${++calls}`
): HttpToolInvocation {
  return { toolCode: 'demo.tool', row: r, args, ctx, idempotencyKey, callId };
}
