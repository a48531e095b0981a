import { CircuitRegistry } from '../../../../activities/tools/http/circuit';
import { invokeHttpTool } from '../../../../activities/tools/http/invoker';
import type { McpHttpToolRow } from '../../../../core/config/tool-rows';
import { EngineError } from '../../../../core/errors';
import type { JsonObject } from '../../../../core/json';
import { httpTool } from '../../../../db/seed/builders';
import { startDemoToolServer, type DemoToolServer } from '../../../../demo/tool-server';

/**
 * What an argument can do to the request an HTTP tool sends: fill a value, never add a body field,
 * move the URL to another path or add a header. Each case asserts what the upstream received.
 */
let server: DemoToolServer;
const env = { CONVENGINE_TOOL_NOTE: 'line\r\nX-Injected: 1', CONVENGINE_TOOL_BASE: '' };
const ctx = { conversationId: 'c-1', turnNumber: 4, userId: 'u-9', tenantId: 't-2' };

beforeAll(async () => {
  server = await startDemoToolServer();
  env.CONVENGINE_TOOL_BASE = server.baseUrl;
});
afterAll(async () => server.stop());
beforeEach(() => server.counters.reset());

function row(extra: Partial<McpHttpToolRow>): McpHttpToolRow {
  return httpTool({ toolId: 1, urlTemplate: `${server.baseUrl}/rb`, maxAttempts: 1, ...extra });
}

let calls = 0;
function invoke(r: McpHttpToolRow, args: JsonObject): Promise<unknown> {
  const inv = { toolCode: 'sandbox.tool', row: r, args, ctx, idempotencyKey: null, callId: `t/tool/${++calls}` };
  return invokeHttpTool(inv, { circuits: new CircuitRegistry(), env });
}

/** Calls the tool, which the upstream answers 404 (no such demo route), and returns what it received. */
async function received(r: McpHttpToolRow, args: JsonObject): Promise<{ route: string; body: string }> {
  await invoke(r, args).catch((err: unknown) => {
    if (!(err instanceof EngineError) || err.type !== 'TOOL_HTTP_ERROR') throw err;
  });
  expect(server.counters.log).toHaveLength(1);
  const logged = server.counters.log[0] as { route: string; body: string };
  server.counters.reset();
  return logged;
}

async function refusal(r: McpHttpToolRow, args: JsonObject): Promise<EngineError> {
  const err = await invoke(r, args).then(
    () => null,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(EngineError);
  expect(server.counters.log).toHaveLength(0);
  return err as EngineError;
}

describe('HTTP tool body: an argument fills a value, never adds a field', () => {
  const post = (bodyTemplate: string, headers: JsonObject | null = null) =>
    row({ httpMethod: 'POST', bodyTemplate, headers });

  it('renders a bare placeholder in a JSON body as a JSON value, whatever the argument holds', async () => {
    const r = post('{"a":{{args.a}},"role":"user"}');
    const injected = await received(r, { a: '1,"is_admin":true' });
    expect(JSON.parse(injected.body)).toEqual({ a: '1,"is_admin":true', role: 'user' });
    const duplicate = await received(r, { a: '1,"role":"admin"' });
    expect(JSON.parse(duplicate.body)).toEqual({ a: '1,"role":"admin"', role: 'user' });
    expect(JSON.parse((await received(r, { a: 7 })).body)).toEqual({ a: 7, role: 'user' });
    expect(JSON.parse((await received(r, { a: null })).body)).toEqual({ a: null, role: 'user' });
  });

  it('escapes a placeholder inside a JSON string as string content', async () => {
    const r = post('{"note":"from {{args.who}}: {{ctx.turnNumber}}","role":"user"}');
    const got = await received(r, { who: 'x","role":"admin' });
    expect(JSON.parse(got.body)).toEqual({ note: 'from x","role":"admin: 4', role: 'user' });
  });

  it('percent-encodes each value of a form body', async () => {
    const r = post('x={{args.x}}&role=user', { 'Content-Type': 'application/x-www-form-urlencoded' });
    const got = await received(r, { x: 'a b&role=admin' });
    const form = new URLSearchParams(got.body);
    expect(form.get('x')).toBe('a b&role=admin');
    expect(form.getAll('role')).toEqual(['user']);
  });

  it('refuses, sending nothing, a template the content type cannot encode values for', async () => {
    const notJson = await refusal(post('x={{args.x}}&role=user'), { x: '1&role=admin' });
    expect(notJson).toMatchObject({ type: 'CONFIG_INVALID', retryable: false });
    expect(notJson.message).toContain('body_template is not JSON');
    const plain = await refusal(post('x={{args.x}}', { 'Content-Type': 'text/plain' }), { x: '1' });
    expect(plain.message).toContain('cannot encode values for Content-Type "text/plain"');
  });
});

describe('HTTP tool URL: a path argument fills its segment, never moves the path', () => {
  const profile = () => row({ urlTemplate: `${server.baseUrl}/api/v1/users/{{args.u}}/profile/{{args.f}}` });
  const item = (suffix = '') => row({ urlTemplate: `{{env.CONVENGINE_TOOL_BASE}}/items/${suffix}{{args.id}}` });

  it.each([
    ['..', '..'],
    ['.', 'x'],
    ['%2e%2E', 'x'],
    ['x', '%252e.'],
  ])('refuses path arguments u=%s f=%s as TOOL_ARGS_INVALID before any request', async (u, f) => {
    const err = await refusal(profile(), { u, f });
    expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID', retryable: false });
    expect(err.message).toContain('dot segment');
  });

  it('refuses .. in a single-segment path, behind an env base URL', async () => {
    const err = await refusal(item(), { id: '..' });
    expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID', details: { argument: 'id' } });
  });

  it('refuses a value that makes a dot segment with the fixed text around it', async () => {
    const err = await refusal(item('.'), { id: '' });
    expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID' });
    expect(err.message).toContain('change the URL path');
  });

  it.each([
    ['between two segments', { u: '', f: 'x' }, 'u'],
    ['as the last segment', { u: 'x', f: '' }, 'f'],
  ])('refuses an empty argument that is a whole path segment (%s) as TOOL_ARGS_INVALID', async (_where, args, arg) => {
    const err = await refusal(profile(), args);
    expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID', retryable: false, details: { argument: arg } });
    expect(err.message).toBe(
      `HTTP tool sandbox.tool: argument "${arg}" is empty, which would leave an empty segment in the URL path`
    );
  });

  it('refuses empty values that together make a whole segment, sending nothing', async () => {
    const r = row({ urlTemplate: `${server.baseUrl}/items/{{args.a}}{{args.b}}/x` });
    const err = await refusal(r, { a: '', b: '' });
    expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID' });
    expect(err.message).toContain('change the URL path');
  });

  it('sends an empty value beside fixed text in its segment, or in the query', async () => {
    const r = row({ urlTemplate: `${server.baseUrl}/items/id-{{args.id}}/x?q={{args.q}}&k=v` });
    expect((await received(r, { id: '', q: '' })).route).toBe('/items/id-/x');
    expect((await received(item(), { id: 'a' })).route).toBe('/items/a');
  });

  it('sends values with dots that are not dot segments, and dots in the query, as they are', async () => {
    expect((await received(profile(), { u: 'a.b', f: '...' })).route).toBe('/api/v1/users/a.b/profile/...');
    expect((await received(item(), { id: '../x' })).route).toBe('/items/..%2Fx');
    const query = row({ urlTemplate: `${server.baseUrl}/items?q={{args.q}}` });
    expect((await received(query, { q: '..' })).route).toBe('/items');
  });
});

describe('HTTP tool headers: an argument cannot add a header', () => {
  it('refuses CR/LF from an argument as TOOL_ARGS_INVALID, sending nothing', async () => {
    const r = row({ headers: { 'X-Note': 'note {{args.note}}' } });
    const err = await refusal(r, { note: 'a\r\nX-Admin: 1' });
    expect(err).toMatchObject({ type: 'TOOL_ARGS_INVALID', retryable: false, details: { header: 'X-Note' } });
  });

  it('blames the config for CR/LF from an environment value', async () => {
    const err = await refusal(row({ headers: { 'X-Note': '{{env.CONVENGINE_TOOL_NOTE}}' } }), {});
    expect(err).toMatchObject({ type: 'CONFIG_INVALID' });
  });
});
