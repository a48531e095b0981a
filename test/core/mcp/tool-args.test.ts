import { emptyConfigRows } from '../../../core/config/rows';
import type { ConfigRows, ConfigSnapshot } from '../../../core/config/types';
import type { McpToolRow } from '../../../core/config/tool-rows';
import { checkToolArgs, MAX_TOOL_ARGS_CHARS } from '../../../core/mcp/tool-args';
import { closeObjectSchemas, toolInputSchema } from '../../../core/mcp/tool-input-schema';
import { dbTool, httpTool, mcpTool, objectSchema } from '../../../db/seed/builders';

function snapshot(rows: Partial<ConfigRows>): ConfigSnapshot {
  return { version: 'v', rows: { ...emptyConfigRows(), ...rows } };
}

function tool(toolId: number, toolCode: string, toolGroup = 'HTTP_API'): McpToolRow {
  return mcpTool({ toolId, toolCode, toolGroup, intentCode: 'ANY', stateCode: 'ANY' });
}

describe('tool input schemas (issue #21)', () => {
  it('closes every object schema that declares properties and is silent on additionalProperties', () => {
    const closed = closeObjectSchemas({
      type: 'object',
      properties: {
        address: { type: 'object', properties: { city: { type: 'string' } } },
        tags: { type: 'array', items: { type: 'object', properties: { k: {} } } },
        meta: { type: 'object', properties: {}, additionalProperties: true },
        example: { type: 'string', default: { type: 'object', properties: {} } },
      },
    });
    expect(closed).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        address: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
        tags: { type: 'array', items: { type: 'object', properties: { k: {} }, additionalProperties: false } },
        meta: { type: 'object', properties: {}, additionalProperties: true },
        // Data keywords are left as written.
        example: { type: 'string', default: { type: 'object', properties: {} } },
      },
    });
  });

  it('derives a schema from the templates when an HTTP tool declares none', () => {
    const t = tool(1, 'orders.get');
    const snap = snapshot({
      mcpTools: [t],
      mcpHttpTools: [
        httpTool({
          toolId: 1,
          urlTemplate: 'https://api.test/orders/{{args.orderId}}',
          queryParams: { expand: '{{ args.expand }}', turn: '{{ctx.turnNumber}}' },
        }),
      ],
    });
    const schema = toolInputSchema(snap, t) as { properties: object; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(['expand', 'orderId']);
    expect(schema.additionalProperties).toBe(false);
    expect(checkToolArgs(snap, t, { orderId: 'A1' })).toEqual({ ok: true });
    const extra = checkToolArgs(snap, t, { orderId: 'A1', role: 'admin' });
    expect(extra).toMatchObject({ ok: false, problems: ['args has "role", which the tool does not accept'] });
    expect(checkToolArgs(snap, t, { orderId: 'x'.repeat(2001) })).toMatchObject({ ok: false });
  });

  it('uses param_schema for DB tools, and derives one from :binds when there is none', () => {
    const declared = tool(2, 'db.declared', 'DB');
    const derived = tool(3, 'db.derived', 'DB');
    const snap = snapshot({
      mcpTools: [declared, derived],
      mcpDbTools: [
        dbTool({
          toolId: 2,
          sqlTemplate: 'select 1 where a = :a',
          paramSchema: objectSchema({ a: { type: 'integer' } }),
        }),
        dbTool({ toolId: 3, sqlTemplate: "select 1 where a = :a and b = ':not_a_bind' and t = ${tbl}" }),
      ],
    });
    expect(checkToolArgs(snap, declared, { a: 'one' })).toMatchObject({
      ok: false,
      problems: ['args.a must be integer'],
    });
    expect(checkToolArgs(snap, derived, { a: 1, tbl: 'orders', limit: 5 })).toEqual({ ok: true });
    expect(checkToolArgs(snap, derived, { not_a_bind: 1 })).toMatchObject({ ok: false });
  });

  it('a tool with no executor row takes no arguments, and oversized args are refused whatever the schema', () => {
    const handlerOnly = tool(4, 'consumer.handler');
    const snap = snapshot({ mcpTools: [handlerOnly] });
    expect(checkToolArgs(snap, handlerOnly, {})).toEqual({ ok: true });
    expect(checkToolArgs(snap, handlerOnly, { a: 1 })).toMatchObject({ ok: false });
    const open = tool(5, 'open.tool');
    const openSnap = snapshot({
      mcpTools: [open],
      mcpHttpTools: [
        httpTool({
          toolId: 5,
          urlTemplate: 'https://x.test',
          inputSchema: { type: 'object', additionalProperties: true },
        }),
      ],
    });
    expect(checkToolArgs(openSnap, open, { anything: 'goes' })).toEqual({ ok: true });
    const huge = { anything: 'x'.repeat(MAX_TOOL_ARGS_CHARS) };
    expect(checkToolArgs(openSnap, open, huge)).toMatchObject({
      ok: false,
      problems: [expect.stringContaining('characters')],
    });
  });

  it('built-in tools have schemas; postgres.query refuses unknown args', () => {
    const pg = tool(6, 'postgres.query', 'DB');
    const snap = snapshot({ mcpTools: [pg] });
    expect(checkToolArgs(snap, pg, { query: 'select 1', params: { a: 1 } })).toEqual({ ok: true });
    expect(checkToolArgs(snap, pg, { query: 'select 1', role: 'superuser' })).toMatchObject({ ok: false });
  });
});
