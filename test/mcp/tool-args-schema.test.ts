import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonObject } from '../../core/json';
import { httpTool, mcpTool, objectSchema, planner } from '../../db/seed/builders';
import { McpHarness } from '../support/mcp-harness';
import { answer, callTool, ORDER, orderConfig } from '../support/order-config';

/**
 * Issue #21: an HTTP tool's input schema is enforced before any request leaves the machine, on
 * the planner path and the direct tool_request path alike. The upstream is a local server that
 * records every request it receives, so "never reached" is counted, not assumed.
 */
interface Received {
  method: string;
  url: string;
  body: string;
}

async function startRecorder(): Promise<{ baseUrl: string; received: Received[]; stop: () => Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ updated: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TOOL = 'crm.customer.update';
const MESSAGE = 'Update the email of the customer on order ORD-7017.';
const VALID = { customerId: 'C1001', email: 'ana@example.com' };
const INPUT_SCHEMA = objectSchema(
  {
    customerId: { type: 'string', pattern: '^C[0-9]{1,8}$' },
    email: { type: 'string', format: 'email', maxLength: 120 },
  },
  ['customerId', 'email']
);

function toolRows(baseUrl: string) {
  return {
    mcpTools: [
      mcpTool({
        toolId: 5301,
        toolCode: TOOL,
        toolGroup: 'HTTP_API',
        intentCode: ORDER,
        stateCode: 'ANY',
        description: 'Updates the email of a customer.',
        allowDirectRequest: true,
      }),
    ],
    // No body_template: the args, as the schema admits them, are the JSON body.
    mcpHttpTools: [
      httpTool({
        toolId: 5301,
        httpMethod: 'POST',
        urlTemplate: `${baseUrl}/customers/{{args.customerId}}`,
        inputSchema: INPUT_SCHEMA,
        maxAttempts: 1,
      }),
    ],
    mcpPlanners: [
      planner({
        plannerId: 5199,
        intentCode: ORDER,
        stateCode: 'ANALYZE',
        systemPrompt: 'Update customers with `crm.customer.update`. Reply with JSON only.',
        userPrompt: 'User: {{user_input}}\nTools: {{mcp_tools}}\nObservations: {{mcp_observations}}',
      }),
    ],
  };
}

const REJECTED: [string, JsonObject, string][] = [
  [
    'an extra field (mass assignment)',
    { ...VALID, isAdmin: true },
    'args has "isAdmin", which the tool does not accept',
  ],
  ['a wrong type', { ...VALID, customerId: 1001 }, 'args.customerId must be string'],
  [
    'an oversized string',
    { ...VALID, email: `${'a'.repeat(5000)}@example.com` },
    'args.email must NOT have more than 120 characters',
  ],
  [
    'an injected URL fragment',
    { ...VALID, customerId: 'C1/../admin?role=root#' },
    'args.customerId must match pattern',
  ],
  ['an injected query string', { ...VALID, customerId: 'C1?delete=true' }, 'args.customerId must match pattern'],
  ['a missing field', { customerId: 'C1001' }, "args must have required property 'email'"],
];

describe('tool input schemas (issue #21)', () => {
  let h: McpHarness;
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  beforeAll(async () => {
    h = await McpHarness.start();
    upstream = await startRecorder();
    await h.configure(orderConfig(toolRows(upstream.baseUrl)));
  });
  afterAll(async () => {
    await upstream.stop();
    await h.stop();
  });
  beforeEach(() => {
    upstream.received.length = 0;
    h.llm.setScript([]);
    h.llm.clearRequests();
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  it('shows the planner each tool input schema, additionalProperties false', async () => {
    h.llm.setScript([answer('Nothing to do.')]);
    await h.turn({ message: MESSAGE });
    const prompt = h.llm.requestsOf('PLAN')[0]?.userText ?? '';
    const tools = JSON.parse(/Tools: (.*)/.exec(prompt)?.[1] ?? '[]') as JsonObject[];
    expect(tools).toEqual([
      expect.objectContaining({ tool_code: TOOL, input_schema: { ...INPUT_SCHEMA, additionalProperties: false } }),
    ]);
  });

  it.each(REJECTED)('planner call with %s never reaches the upstream', async (_label, args, problem) => {
    h.llm.setScript([callTool(TOOL, args), answer('I could not update the customer.')]);
    const result = await h.turn({ message: MESSAGE });
    expect(upstream.received).toEqual([]);
    const rejected = await h.payload(result.conversationId, 'TOOL_ARGS_REJECTED');
    expect(rejected).toMatchObject({ tool_code: TOOL, tool_group: 'HTTP_API' });
    expect((rejected?.['problems'] as string[]).join('; ')).toContain(problem);
    const observation = ((result.context['mcp'] as JsonObject)['observations'] as JsonObject[])[0];
    expect(observation).toMatchObject({ toolCode: TOOL, status: 'ARGS_REJECTED' });
    // The planner's next prompt says what was wrong, so it can correct the call.
    expect(h.llm.requestsOf('PLAN')[1]?.userText).toContain(JSON.stringify(problem).slice(1, -1));
    expect(await h.stages(result.conversationId)).not.toContain('MCP_TOOL_CALL');
  });

  it('a valid planner call sends exactly the declared arguments, once', async () => {
    h.llm.setScript([callTool(TOOL, VALID), answer('Updated.')]);
    const result = await h.turn({ message: MESSAGE });
    expect(upstream.received).toEqual([{ method: 'POST', url: '/customers/C1001', body: JSON.stringify(VALID) }]);
    expect(await h.stages(result.conversationId)).not.toContain('TOOL_ARGS_REJECTED');
  });

  it('the planner can correct a rejected call within the same turn', async () => {
    h.llm.setScript([callTool(TOOL, { ...VALID, isAdmin: true }), callTool(TOOL, VALID), answer('Updated.')]);
    const result = await h.turn({ message: MESSAGE });
    expect(upstream.received).toHaveLength(1);
    expect(JSON.parse(upstream.received[0]?.body ?? '{}')).toEqual(VALID);
    const observations = (result.context['mcp'] as JsonObject)['observations'] as JsonObject[];
    expect(observations.map((o) => o['status'])).toEqual(['ARGS_REJECTED', 'SUCCESS']);
  });

  it.each(REJECTED)('a direct tool_request with %s never reaches the upstream', async (_label, args, problem) => {
    const inputParams = { tool_request: { tool_code: TOOL, tool_group: 'HTTP_API', args } };
    h.llm.setScript([answer('The update was refused.')]);
    const result = await h.turn({ message: MESSAGE, inputParams });
    expect(upstream.received).toEqual([]);
    expect((result.context['mcp'] as JsonObject)['toolExecution']).toMatchObject({
      status: 'ERROR',
      errorType: 'TOOL_ARGS_INVALID',
    });
    const rejected = await h.payload(result.conversationId, 'TOOL_ARGS_REJECTED');
    expect((rejected?.['problems'] as string[]).join('; ')).toContain(problem);
  });

  it('a valid direct tool_request runs the tool once', async () => {
    const inputParams = { tool_request: { tool_code: TOOL, tool_group: 'HTTP_API', args: VALID } };
    h.llm.setScript([answer('Updated.')]);
    const result = await h.turn({ message: MESSAGE, inputParams });
    expect((result.context['mcp'] as JsonObject)['toolExecution']).toMatchObject({ status: 'SUCCESS' });
    expect(upstream.received).toEqual([{ method: 'POST', url: '/customers/C1001', body: JSON.stringify(VALID) }]);
  });
});
