import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditStage } from '../../core/audit/payloads';
import type { ConfigRows } from '../../core/config/types';
import { McpAudit } from '../../core/mcp/constants';
import { readConfigRows } from '../../db/config/load';
import { configToYaml } from '../../db/config/yaml-tree';
import { ensureConversation } from '../../db/repositories/conversation';
import type { CliRun } from '../support/run-cli';
import { runConvengine } from '../support/run-cli';
import { seededConfigDatabase } from './config-as-code-tree';

// Each run spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(300_000);

/** Clears the screen, writes the clipboard (OSC 52), then opens a C1 CSI: what a terminal would obey. */
const ESC = '\u001b[2J\u001b]52;c;ZXZpbA==\u0007\u009b31m';
/** What config validation lets through (line breaks, bidi controls): a forged warning line, then text reversed. */
const FORGE = '\r\nwarning: FORGED\u202eDESREVER\u2066';
const FORGE_SHOWN = '⟨U+000D⟩⟨U+000A⟩warning: FORGED⟨U+202E⟩DESREVER⟨U+2066⟩';
/** ESC as a violation quotes it: the code upper-cased, as codes are matched. */
const ESC_SHOWN = '⟨U+001B⟩[2J⟨U+001B⟩]52;C;ZXZPBA==⟨U+0007⟩⟨U+009B⟩31M';
const INTENT = `EVIL_${FORGE}`;
const TOOL = `evil.tool${FORGE}`;
const TOOL_ID = 99100;
const SUBMIT_ID = 10204;

/** Any character a terminal obeys or hides (C0 but the line feed between lines, DEL, C1, the bidi controls). */
// eslint-disable-next-line no-control-regex -- finding them is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** Each `convengine config` action on a tree, the apply last. */
const everyAction = (dir: string) => [
  ['validate', dir],
  ['diff', dir],
  ['apply', dir, '--dry-run'],
  ['apply', dir],
];

/** Everything `run` printed holds no raw control, no line of its own forged by a row, and `shown` as written. */
function expectShown(run: CliRun, ...shown: string[]): void {
  const printed = `${run.stdout}${run.stderr}`;
  expect(printed).not.toMatch(RAW);
  expect(printed.split('\n').filter((line) => line.startsWith('warning: FORGED'))).toEqual([]);
  for (const text of shown) expect(printed).toContain(text);
}

/**
 * Config rows (a YAML tree, or ce_* rows already in the database) are anyone's text: the CLI prints their codes and
 * texts with every control shown as its code point, never obeyed, and never as a line of its own.
 */
describe('convengine config shows the controls of the config rows it prints', () => {
  const seeded = seededConfigDatabase();
  const { cli } = seeded;

  async function writeTree(name: string, rows: ConfigRows): Promise<string> {
    const dir = join(seeded.work, name);
    await mkdir(dir, { recursive: true });
    for (const [file, text] of configToYaml(rows)) await writeFile(join(dir, file), text);
    return dir;
  }

  /** The seeded config with an intent, its response, and a copy of the loan submit tool, each named by hostile text. */
  function withHostileRows(rows: ConfigRows): ConfigRows {
    const intent = rows.intents.find((i) => i.intentCode === 'GREETING')!;
    const response = rows.responses.find((r) => r.intentCode === 'GREETING')!;
    const tool = rows.mcpTools.find((t) => t.toolId === SUBMIT_ID)!;
    const http = rows.mcpHttpTools.find((t) => t.toolId === SUBMIT_ID)!;
    return {
      ...rows,
      intents: [...rows.intents, { ...intent, intentCode: INTENT }],
      responses: [...rows.responses, { ...response, responseId: 99001, intentCode: INTENT }],
      mcpTools: [...rows.mcpTools, { ...tool, toolId: TOOL_ID, toolCode: TOOL }],
      mcpHttpTools: [...rows.mcpHttpTools, { ...http, toolId: TOOL_ID }],
    };
  }

  it('validate, diff and apply --dry-run show the escape sequences of an invalid tree', async () => {
    const rows = await readConfigRows(seeded.tdb.db);
    const bad = { ...rows.responses[0]!, responseId: 99002, intentCode: `BAD_${ESC}`, stateCode: `S_${FORGE}` };
    const dir = await writeTree('escapes', { ...rows, responses: [...rows.responses, bad] });
    for (const args of everyAction(dir)) {
      const run = await cli(...args);
      expect(run.code).toBe(1);
      expectShown(run, `BAD_${ESC_SHOWN}`, 'config invalid');
    }
  });

  it("validate names the line and column of YAML that does not parse, never printing the file's line, and shows the controls of a file's name", async () => {
    const dir = await writeTree('unparsed', await readConfigRows(seeded.tdb.db));
    await writeFile(join(dir, 'ce_verbose.yaml'), `- intent_code: ${ESC}: ${FORGE}\n`);
    // A file that is no table file is named in a warning: its name is the author's too.
    await writeFile(join(dir, `notes${FORGE}.txt`), '');
    const run = await cli('validate', dir);
    expect(run.code).toBe(1);
    expectShown(
      run,
      'ce_verbose.yaml: YAML does not parse: ',
      ' at line 1, column ',
      `warning: notes${FORGE_SHOWN}.txt: not read`
    );
  });

  it('diff, apply and their warnings show the line breaks and bidi controls of codes a valid tree holds', async () => {
    const before = await readConfigRows(seeded.tdb.db);
    const hostile = await writeTree('hostile', withHostileRows(before));
    for (const args of everyAction(hostile)) {
      const run = await cli(...args);
      expect(run.code).toBe(0);
      expectShown(run, ...(args[0] === 'validate' ? [] : [`+ ce_intent[EVIL_${FORGE_SHOWN}]`]));
    }
    // A conversation at rest in the hostile intent, and a turn parked on the hostile tool's approval.
    const conversation = crypto.randomUUID();
    await ensureConversation(seeded.tdb.db, conversation);
    await seeded.tdb.db.$client.query(
      'UPDATE ce_conversation SET intent_code = $2, state_code = $3 WHERE conversation_id = $1',
      [conversation, INTENT, 'IDLE']
    );
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    for (const [i, stage] of [AuditStage.UserInput, McpAudit.ApprovalRequested].entries()) {
      await seeded.tdb.db.$client.query(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
         VALUES ($1, 1, $2, $3, $4)`,
        [conversation, stage, { tool_code: TOOL, call_index: 1, expires_at: expiresAt }, `control-chars/${i}`]
      );
    }
    const back = await writeTree('back', before);
    for (const args of [
      ['diff', back],
      ['apply', back, '--dry-run'],
    ]) {
      const run = await cli(...args);
      expect(run.code).toBe(0);
      expectShown(
        run,
        `- ce_intent[EVIL_${FORGE_SHOWN}]`,
        `in intent EVIL_${FORGE_SHOWN}, state IDLE have a response now`,
        `wait on an approval for tool evil.tool${FORGE_SHOWN}, which this change removes`
      );
    }
  });

  it('validate-config shows the controls of ce_* rows written straight to the database', async () => {
    await seeded.tdb.db.$client.query(
      `INSERT INTO ce_response (response_id, intent_code, state_code, output_format, response_type, exact_text)
       VALUES (99003, $1, 'IDLE', 'TEXT', 'EXACT', 'hi')`,
      [`DB_${ESC}`]
    );
    for (const args of [[], ['--explain']]) {
      const run = await runConvengine(['validate-config', ...args], { DATABASE_URL: seeded.tdb.url });
      expect(run.code).toBe(1);
      // The second test left its hostile intent in the database: its warning names it.
      expectShown(run, `invalid intent_code=DB_${ESC_SHOWN}`, `warning: ce_intent[EVIL_${FORGE_SHOWN}]`);
    }
  });
});
