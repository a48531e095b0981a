import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditStage } from '../../core/audit/payloads';
import type { ConfigRows } from '../../core/config/types';
import { McpAudit } from '../../core/mcp/constants';
import { readConfigRows } from '../../db/config/load';
import { configToYaml } from '../../db/config/yaml-tree';
import { ensureConversation } from '../../db/repositories/conversation';
import { seededConfigDatabase } from './config-as-code-tree';
import { runConvengine } from '../support/run-cli';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(120_000);

const SUBMIT = { toolId: 10204, toolCode: 'loan.application.submit' };
const DEBT = { toolId: 10203, toolCode: 'loan.debt.credit.summary' };
const HOUR_MS = 3_600_000;

/**
 * S48: a config change that removes or changes a tool turns are parked on (an approval, or a call held for an
 * operator) warns of them: decided after it, they still run the tool of the version they started on.
 */
describe('convengine config warns of turns parked on a tool the change removes or changes', () => {
  const seeded = seededConfigDatabase();
  const { cli } = seeded;
  let audits = 0;

  /** A conversation whose turn 1 (uncommitted) wrote `stages` in order, each naming `toolCode`, waits until `expiresAt`. */
  async function conversationWith(toolCode: string, stages: string[], expiresInMs = HOUR_MS): Promise<string> {
    const id = crypto.randomUUID();
    await ensureConversation(seeded.tdb.db, id);
    const expiresAt = new Date(Date.now() + expiresInMs).toISOString();
    for (const stage of [AuditStage.UserInput, ...stages]) {
      audits += 1;
      await seeded.tdb.db.$client.query(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
         VALUES ($1, 1, $2, $3, $4)`,
        [id, stage, { tool_code: toolCode, call_index: 4, expires_at: expiresAt }, `parked-test/${audits}`]
      );
    }
    return id;
  }

  async function writeTree(name: string, edit: (rows: ConfigRows) => ConfigRows): Promise<string> {
    const dir = join(seeded.work, name);
    await mkdir(dir, { recursive: true });
    for (const [file, text] of configToYaml(edit(await readConfigRows(seeded.tdb.db)))) {
      await writeFile(join(dir, file), text);
    }
    return dir;
  }

  it('names the parked and held turns of a removed or changed tool in diff, --dry-run and apply, and only those, advising for a plan or a made change', async () => {
    const approval = await conversationWith(SUBMIT.toolCode, [McpAudit.ApprovalRequested]);
    const held = await conversationWith(DEBT.toolCode, [McpAudit.ToolHeld]);
    // Decided, expired, or parked on a tool the change leaves alone: none of these is named.
    const decided = await conversationWith(SUBMIT.toolCode, [McpAudit.ApprovalRequested, McpAudit.ApprovalGranted]);
    const expired = await conversationWith(SUBMIT.toolCode, [McpAudit.ApprovalRequested], -HOUR_MS);
    const untouched = await conversationWith('loan.credit.rating.check', [McpAudit.ApprovalRequested]);

    const dir = await writeTree('remove-submit', (rows) => ({
      ...rows,
      mcpTools: rows.mcpTools
        .filter((t) => t.toolId !== SUBMIT.toolId)
        .map((t) => (t.toolId === DEBT.toolId ? { ...t, description: 'Debt summary, reworded.' } : t)),
      mcpHttpTools: rows.mcpHttpTools.filter((t) => t.toolId !== SUBMIT.toolId),
    }));
    const approvalWarning = (change: string, advice: string) =>
      `warning: 1 turn(s) wait on an approval for tool ${SUBMIT.toolCode}, which this change ${change}; ` +
      `they run on the config version they started on when decided (the tool as it was, even removed): ${approval}; ` +
      advice;
    const heldWarning = (change: string, advice: string) =>
      `warning: 1 turn(s) are held for an operator for tool ${DEBT.toolCode}, which this change ${change}; ` +
      `they run on the config version they started on when decided (the tool as it was, even removed): ${held}; ` +
      advice;
    // A plan can wait for them: decide them first.
    for (const args of [
      ['diff', dir],
      ['apply', dir, '--dry-run'],
    ]) {
      const run = await cli(...args);
      expect(run).toMatchObject({ code: 0 });
      expect(run.stderr).toContain(
        approvalWarning('removes', 'approve or reject them first (convengine sre approvals)')
      );
      expect(run.stderr).toContain(
        heldWarning('changes', 'resolve them first (convengine sre list; retry, skip, fail or mark-done)')
      );
      for (const id of [decided, expired, untouched]) expect(run.stderr).not.toContain(id);
    }
    // A made change cannot: what a decision does now, and the one that keeps the old tool from running.
    const apply = await cli('apply', dir);
    expect(apply).toMatchObject({ code: 0 });
    expect(apply.stderr).toContain(
      approvalWarning(
        'removed',
        'the change is made: approved, they run the old tool; reject them if it must not run (convengine sre approvals)'
      )
    );
    expect(apply.stderr).toContain(
      heldWarning(
        'changed',
        'the change is made: retried, they run the old tool; skip or fail them if it must not run (convengine sre list)'
      )
    );
    expect(apply.stderr).not.toContain('first');
    for (const id of [decided, expired, untouched]) expect(apply.stderr).not.toContain(id);
    expect((await readConfigRows(seeded.tdb.db)).mcpTools.some((t) => t.toolId === SUBMIT.toolId)).toBe(false);
  });

  /**
   * `config apply dir` as a role that may write the config but, on ce_conversation, only read `columns`: the checks
   * after the commit that read more of it fail.
   */
  async function applyAsRestrictedRole(dir: string, columns: string[]) {
    const role = `cfg_author_${crypto.randomUUID().slice(0, 8)}`;
    const sql = (text: string) => seeded.tdb.db.$client.query(text);
    await sql(`CREATE ROLE ${role} LOGIN`);
    try {
      await sql(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`);
      await sql(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
      await sql(`GRANT EXECUTE ON FUNCTION pg_notify(text, text) TO ${role}`);
      await sql(`REVOKE ALL ON ce_conversation FROM ${role}`);
      if (columns.length > 0) await sql(`GRANT SELECT (${columns.join(', ')}) ON ce_conversation TO ${role}`);
      const url = new URL(seeded.tdb.url);
      url.username = role;
      return await runConvengine(['config', 'apply', dir], { DATABASE_URL: url.toString() });
    } finally {
      await sql(`DROP OWNED BY ${role}`);
      await sql(`DROP ROLE ${role}`);
    }
  }

  it('an apply whose checks after the commit cannot read the conversations says the change is made, and exits 0', async () => {
    const dir = await writeTree('unreadable-conversations', (rows) => ({
      ...rows,
      mcpTools: rows.mcpTools.map((t) => (t.toolId === 5001 ? { ...t, description: 'Order lookup, again.' } : t)),
    }));
    const apply = await applyAsRestrictedRole(dir, []);
    expect(apply).toMatchObject({ code: 0 });
    expect(apply.stdout).toMatch(/applied 1 change\(s\); config version \w+$/m);
    expect(apply.stderr).toContain('warning: the change is made, but the conversations it may strand');
    expect(apply.stderr).not.toContain('config failed');
    const rows = await readConfigRows(seeded.tdb.db);
    expect(rows.mcpTools.find((t) => t.toolId === 5001)?.description).toBe('Order lookup, again.');
  });

  it('an apply whose stranded-conversations check cannot read still warns of the turns parked on its tools', async () => {
    await conversationWith(DEBT.toolCode, [McpAudit.ToolHeld]);
    const dir = await writeTree('parked-check-alone', (rows) => ({
      ...rows,
      mcpTools: rows.mcpTools.map((t) => (t.toolId === DEBT.toolId ? { ...t, description: 'Debt, once more.' } : t)),
    }));
    // The parked-turns check reads a conversation's id and turn count; the stranded one, where it rests.
    const apply = await applyAsRestrictedRole(dir, ['conversation_id', 'turn_count']);
    expect(apply).toMatchObject({ code: 0 });
    expect(apply.stderr).toContain(
      'warning: the change is made, but the conversations it may strand could not be read'
    );
    const held = `for tool ${DEBT.toolCode.replace(/\./g, '\\.')}, which this change changed`;
    expect(apply.stderr).toMatch(new RegExp(`warning: \\d+ turn\\(s\\) are held for an operator ${held}`));
    expect(apply.stderr).not.toContain('the turns parked on its tools could not be read');
  });

  it('a change that touches no tool a turn is parked on warns of none', async () => {
    await conversationWith('loan.credit.fraud.check', [McpAudit.ToolHeld]);
    // The first test's parked turns (rating check, submit) stay too; the order pack's tool 5001 has none.
    const dir = await writeTree('other-tool', (rows) => ({
      ...rows,
      mcpTools: rows.mcpTools.map((t) => (t.toolId === 5001 ? { ...t, description: 'Order lookup, reworded.' } : t)),
    }));
    const diff = await cli('diff', dir);
    expect(diff).toMatchObject({ code: 0 });
    expect(diff.stdout).toContain('~ ce_mcp_tool[5001]: description');
    expect(diff.stderr).not.toContain('warning:');
  });
});
