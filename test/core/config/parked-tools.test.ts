import { parkedOnChangedTools, type ParkedTurn } from '../../../core/config/parked-tools';
import { emptyConfigRows } from '../../../core/config/rows';
import type { ConfigRows } from '../../../core/config/types';
import { httpTool, mcpTool } from '../../../db/seed/builders';

const tool = (toolId: number, toolCode: string, enabled = true) =>
  mcpTool({ toolId, toolCode, toolGroup: 'G', intentCode: 'LOAN', stateCode: 'ANY', enabled });
const config = (...mcpTools: ConfigRows['mcpTools']): ConfigRows => ({
  ...emptyConfigRows(),
  mcpTools,
  mcpHttpTools: mcpTools.map((t) => httpTool({ toolId: t.toolId, urlTemplate: 'http://tools/x' })),
});
const parkedOn = (conversationId: string, toolCode: string, waitsOn: ParkedTurn['waitsOn'] = 'approval') => ({
  conversationId,
  toolCode,
  waitsOn,
});

describe('parkedOnChangedTools (core/config/parked-tools.ts)', () => {
  const inForce = config(tool(1, 'submit'), tool(2, 'rating'), tool(3, 'fraud'), tool(4, 'summary'));
  const parked = [
    parkedOn('c1', 'submit'),
    parkedOn('c2', 'submit'),
    parkedOn('c3', 'rating', 'held'),
    parkedOn('c4', 'fraud'),
    parkedOn('c5', 'summary'),
    parkedOn('c6', 'gone-before'),
  ];

  it('groups parked turns by tool and wait: a tool renamed is removed, one disabled or with a row changed told so', () => {
    const next = config(tool(1, 'submit.v2'), tool(2, 'rating'), tool(3, 'fraud', false), tool(4, 'summary'));
    next.mcpHttpTools = next.mcpHttpTools.map((h) => (h.toolId === 2 ? { ...h, urlTemplate: 'http://tools/y' } : h));
    const changes = [
      { table: 'ce_mcp_tool', id: '1' },
      { table: 'ce_mcp_http_tool', id: '2' },
      { table: 'ce_mcp_tool', id: '3' },
    ];
    expect(parkedOnChangedTools(inForce, next, changes, parked)).toEqual([
      { toolCode: 'submit', waitsOn: 'approval', change: 'removes', conversationIds: ['c1', 'c2'] },
      { toolCode: 'rating', waitsOn: 'held', change: 'changes', conversationIds: ['c3'] },
      { toolCode: 'fraud', waitsOn: 'approval', change: 'disables', conversationIds: ['c4'] },
    ]);
  });

  it('names none when the change touches no tool rows, or only tools nobody is parked on', () => {
    expect(parkedOnChangedTools(inForce, inForce, [{ table: 'ce_response', id: '1' }], parked)).toEqual([]);
    const next = config(...inForce.mcpTools, tool(9, 'new'));
    expect(parkedOnChangedTools(inForce, next, [{ table: 'ce_mcp_tool', id: '9' }], parked)).toEqual([]);
  });
});
