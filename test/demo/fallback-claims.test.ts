import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readYamlTree } from '../../cli/yaml-tree-files';
import { yamlToConfig } from '../../db/config/yaml-tree';
import { DemoHarness } from './demo-harness';

const EXAMPLE = join(__dirname, '..', '..', 'examples', 'claims');
const FILED = 'I found: policy_number P-1001, status ACTIVE, coverage_limit 5000. Policy P-1001.';

/**
 * examples/claims/README.md's conversation on `convengine start`'s keyless model (demo/fallback-model.ts): the
 * fallback reads the claim's date and amount, and the confirmed turn's planner finds the policy in its prompt.
 */
describe('examples/claims on the keyless demo model', () => {
  let h: DemoHarness;
  beforeAll(async () => {
    h = await DemoHarness.start({ fallback: true });
    await h.tdb.pool.query(await readFile(join(EXAMPLE, 'business.sql'), 'utf8'));
    await h.configure(yamlToConfig(await readYamlTree(join(EXAMPLE, 'config'))).rows);
  }, 120_000);
  afterAll(async () => h?.stop());

  const say = async (message: string, conversationId: string | null = null) => {
    const turn = await h.say(message, conversationId);
    return { conversationId: turn.conversationId, state: turn.state, reply: turn.reply };
  };
  const confirm = (cost: number) =>
    `Please confirm: policy P-1001, incident on 2026-03-01, estimated cost ${cost} EUR. Reply yes to submit, or change a value.`;

  it("files the README's conversation, reply by reply as the README shows it", async () => {
    const readme = await readFile(join(EXAMPLE, 'README.md'), 'utf8');
    const rows = readme.slice(readme.indexOf('| You say')).split('\n\n')[0]!.split('\n').slice(2);
    const turns = rows
      .map((row) => row.split('|').map((cell) => cell.trim()))
      .map(([, user, reply]) => ({ user, reply }));
    expect(turns.map((t) => t.user)).toEqual([expect.stringContaining('P-1001'), expect.any(String), 'yes']);
    let id: string | null = null;
    for (const turn of turns) {
      const answered = await say(turn.user!, id);
      expect({ user: turn.user, reply: answered.reply }).toEqual(turn);
      id = answered.conversationId;
    }
    expect(turns.at(-1)?.reply).toBe(FILED);
  });

  it('asks for what is missing, then files the claim once the date and the cost are given', async () => {
    const first = await say('I want to file a claim for policy P-1001');
    expect(first).toMatchObject({
      state: 'COLLECT',
      reply: 'To file the claim I still need: [incident_date, estimated_cost].',
    });
    const id = first.conversationId;
    const given = await say('It happened on 2026-03-01 and will cost about 1200 EUR.', id);
    expect(given).toMatchObject({ state: 'CONFIRM', reply: confirm(1200) });
    expect(await say('yes', id)).toMatchObject({ state: 'DONE', reply: FILED });
  });
});
