import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readYamlTree } from '../../cli/yaml-tree-files';
import { validateConfig } from '../../core/config/validate';
import { yamlToConfig } from '../../db/config/yaml-tree';
import type { ScriptEntry } from '../../scripted-llm';
import { ApiHarness } from '../support/api-harness';

const EXAMPLE = join(__dirname, '..', '..', 'examples', 'claims');

interface ScriptedTurn {
  user: string;
  llm?: { kind: string; match?: string; reply: unknown }[];
  expect: { intent: string; state: string; reply: string };
}

/** Issue 14 "Done when": a second domain pack, written from docs/config-reference.md, run end to end. */
describe('examples/claims end to end (HTTP API, Temporal worker, real activities)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
    await h.wf.mcp.base.tdb.pool.query(await readFile(join(EXAMPLE, 'business.sql'), 'utf8'));
  });
  afterAll(async () => h?.stop());

  it('its YAML tree loads and validates with no violations', async () => {
    const { rows, errors } = yamlToConfig(await readYamlTree(join(EXAMPLE, 'config')));
    expect(errors).toEqual([]);
    expect(validateConfig(rows).violations).toEqual([]);
  });

  it('runs the scripted conversation: collect, correct by field key, confirm, plan with the DB tool, done', async () => {
    const { rows } = yamlToConfig(await readYamlTree(join(EXAMPLE, 'config')));
    await h.wf.mcp.configure(rows);
    const script = parse(await readFile(join(EXAMPLE, 'conversation.yaml'), 'utf8')) as { turns: ScriptedTurn[] };
    let conversationId: string | undefined;
    for (const turn of script.turns) {
      h.wf.mcp.llm.setScript((turn.llm ?? []).map((e): ScriptEntry => ({ ...e })));
      const res = await h.request('POST', '/api/v1/conversation/message', {
        json: { message: turn.user, ...(conversationId ? { conversationId } : {}) },
      });
      expect({ turn: turn.user, status: res.status }).toEqual({ turn: turn.user, status: 200 });
      const body = res.json();
      conversationId = body.conversationId;
      expect({ intent: body.intent, state: body.state, reply: body.payload.value }).toEqual(turn.expect);
      expect(h.wf.mcp.llm.unconsumed()).toEqual([]);
    }
    const audits = (await h.request('GET', `/api/v1/conversation/audit/${conversationId}`)).json() as {
      stage: string;
    }[];
    expect(audits.map((a) => a.stage)).toEqual(
      expect.arrayContaining(['CORRECTION_STEP_CORRECTION_PATCH_APPLIED', 'MCP_TOOL_CALL', 'MCP_FINAL_ANSWER'])
    );
  }, 180_000);
});
