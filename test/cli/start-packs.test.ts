import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stackConfig } from '../../cli/commands/start';
import type { CliIo } from '../../cli/command';
import { prepareDatabase } from '../../cli/stack/prepare-database';
import { emptyConfigRows } from '../../core/config/rows';
import type { ConfigRows } from '../../core/config/types';
import { readConfigRows } from '../../db/config/load';
import { configToYaml } from '../../db/config/yaml-tree';
import { baseConfig } from '../support/base-config';
import { responseRow } from '../support/config-rows';
import { createTestDatabase, type TestDatabase } from '../support/database';

function captureIo(): CliIo & { errors: string[] } {
  const errors: string[] = [];
  return { out: () => undefined, err: (line) => errors.push(line), stdin: process.stdin, errors };
}

async function writeTree(dir: string, rows: Partial<ConfigRows>): Promise<void> {
  for (const [name, text] of configToYaml({ ...emptyConfigRows(), ...rows })) await writeFile(join(dir, name), text);
}

/** Issue 14 item 7: `convengine start --packs <names|none> --config <dir>`. */
describe('convengine start --packs / --config', () => {
  let work: string;
  let tdb: TestDatabase;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'convengine-start-'));
  });
  afterAll(async () => rm(work, { recursive: true, force: true }));
  beforeEach(async () => {
    tdb = await createTestDatabase();
  });
  afterEach(async () => tdb.drop());

  const options = (entries: Record<string, string>) =>
    new Map<string, string[]>(Object.entries(entries).map(([k, v]) => [k, [v]]));

  it('parses pack lists, "none" and "all", and refuses an unknown pack', async () => {
    const io = captureIo();
    expect(await stackConfig(options({}), io)).toEqual({ packs: ['all'] });
    expect(await stackConfig(options({ packs: 'none' }), io)).toEqual({ packs: [] });
    expect(await stackConfig(options({ packs: 'faq, move-connections' }), io)).toEqual({
      packs: ['faq', 'move-connections'],
    });
    expect(await stackConfig(options({ packs: 'faq,claims' }), io)).toBe(2);
    expect(io.errors.join('\n')).toMatch(/--packs: unknown seed pack "claims"/);
  });

  it("--packs none --config <dir> loads only the author's tree: no demo GREETING/UNKNOWN rows", async () => {
    const dir = join(work, 'own');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    // The base config's FAQ has no response of its own (a warning): the tree gives it one, so nothing is said.
    const faq = responseRow({ responseId: 3, intentCode: 'FAQ', stateCode: 'ANY', exactText: 'Ask away.' });
    await writeTree(dir, baseConfig({ responses: [faq] }));
    const io = captureIo();
    const config = await stackConfig(options({ packs: 'none', config: dir }), io);
    expect(io.errors).toEqual([]);
    if (typeof config === 'number') throw new Error(`refused: ${config}`);
    await prepareDatabase(tdb.url, config);
    const rows = await readConfigRows(tdb.db);
    expect(rows.intents.map((i) => i.intentCode).sort()).toEqual(['FAQ', 'GREETING', 'UNKNOWN']);
    expect(rows.mcpTools).toEqual([]);
  });

  it('with packs, the tree is laid over them (equal ids: the tree wins) and validated together', async () => {
    const dir = join(work, 'over');
    await mkdir(dir, { recursive: true });
    await writeTree(dir, {
      responses: [responseRow({ responseId: 1, intentCode: 'GREETING', stateCode: 'IDLE', exactText: 'Welcome!' })],
    });
    const io = captureIo();
    const config = await stackConfig(options({ packs: 'faq', config: dir }), io);
    if (typeof config === 'number') throw new Error(`refused: ${io.errors.join('\n')}`);
    await prepareDatabase(tdb.url, config);
    const rows = await readConfigRows(tdb.db);
    expect(rows.responses.find((r) => r.responseId === 1)?.exactText).toBe('Welcome!');
    expect(rows.intents.map((i) => i.intentCode)).toContain('FAQ');

    await writeTree(dir, {
      responses: [responseRow({ responseId: 77, intentCode: 'CLAIMS', stateCode: 'IDLE', exactText: 'x' })],
    });
    expect(await stackConfig(options({ packs: 'faq', config: dir }), io)).toBe(1);
    expect(io.errors.join('\n')).toMatch(/ce_response\[77\]: invalid intent_code=CLAIMS/);
  });
});
