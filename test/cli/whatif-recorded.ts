import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { whatifCommand } from '../../cli/commands/whatif';
import { readConfigRows } from '../../db/config/load';
import { configToYaml } from '../../db/config/yaml-tree';
import { DEMO_CONVERSATIONS } from '../../demo/conversations';
import { runConversations } from '../../demo/demo-runner';
import { DemoHarness } from '../demo/demo-harness';
import { runConvengine, type CliRun } from '../support/run-cli';
import { loadEnv } from '../../config/env';

export type Row = Record<string, unknown>;

/** `convengine whatif <args>` in this process on the database at `url` (spawning costs seconds per run). */
export async function whatifInProcess(url: string, args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = process.env['DATABASE_URL'];
  process.env['DATABASE_URL'] = url;
  try {
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), stdin: process.stdin };
    const code = await whatifCommand.run(args, io, loadEnv());
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    process.env['DATABASE_URL'] = saved;
  }
}

/**
 * What the what-if tests (whatif*.test.ts) replay: every seed demo conversation recorded once in the file's
 * beforeAll (in process, recorded model), with the ways they run `convengine whatif` on it and edit a draft config.
 */
export function recordedSeedConversations() {
  const seeds = {
    demo: undefined as unknown as DemoHarness,
    /** A scratch directory for draft trees, removed after the file's tests. */
    work: '',
    /** Conversation id by seed conversation name. */
    ids: new Map<string, string>(),
    /** What fingerprint() read once the conversations were recorded. */
    before: {} as Row,
    idOf: (name: string) => seeds.ids.get(name) as string,
    /** Through bin/convengine.js, as a user or CI runs it. */
    cli: (...args: string[]) => runConvengine(['whatif', ...args], { DATABASE_URL: seeds.demo.tdb.url }),
    /** The same command in this process (spawning costs seconds per run on a loaded machine). */
    inProcess: (...args: string[]): Promise<CliRun> => whatifInProcess(seeds.demo.tdb.url, args),
    /** Everything a replay could touch, so isolation can be checked at the end. */
    fingerprint: async () => {
      const { rows } = await seeds.demo.tdb.pool.query(`
      select (select count(*) from ce_conversation) conversations,
             (select count(*) from ce_conversation_history) history,
             (select count(*) from ce_llm_call_log) llm_calls,
             (select count(*) from ce_config_snapshot) snapshots,
             (select md5(string_agg(a::text, '|' order by audit_id)) from ce_audit a) audits,
             (select md5(string_agg(c::text, '|' order by conversation_id)) from ce_conversation c) conversation_rows`);
      return rows[0] as Row;
    },
    /** The config as a YAML tree in a fresh directory, edited by `edit(table, rows)`. */
    draftTree: async (name: string, edit: (file: string, rows: Row[]) => Row[]): Promise<string> => {
      const dir = join(seeds.work, name);
      await mkdir(dir, { recursive: true });
      for (const [file, text] of configToYaml(await readConfigRows(seeds.demo.tdb.db))) {
        const rows = (parse(text) ?? []) as Row[];
        await writeFile(join(dir, file), stringify(edit(file, rows), { lineWidth: 0 }), 'utf8');
      }
      return dir;
    },
  };
  beforeAll(async () => {
    seeds.demo = await DemoHarness.start();
    const records = await runConversations(DEMO_CONVERSATIONS, seeds.demo.send);
    expect(records.filter((r) => !r.ok)).toEqual([]);
    for (const r of records) seeds.ids.set(r.conversation, r.conversationId as string);
    seeds.work = await mkdtemp(join(tmpdir(), 'convengine-whatif-'));
    seeds.before = await seeds.fingerprint();
  });
  afterAll(async () => {
    await rm(seeds.work, { recursive: true, force: true });
    await seeds.demo?.stop();
  });
  return seeds;
}
