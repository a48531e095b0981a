/**
 * `claims prune` / `conversations prune` (cli/prune-command.ts) measure `--older-than` back from the database's
 * now(), the clock every row's timestamp came from: a CLI host whose clock runs ahead (here by 91 days) neither
 * prunes rows written just now nor prints a cutoff the database never used.
 */
import { randomUUID } from 'node:crypto';
import type { CliIo } from '../../cli/command';
import { claimsCommand } from '../../cli/commands/claims';
import { conversationsCommand } from '../../cli/commands/conversations';
import { loadEnv } from '../../config/env';
import { createTestDatabase, type TestDatabase } from '../support/database';

const DAY = 24 * 60 * 60 * 1000;
const SKEW_MS = 91 * DAY;

describe('prune with the CLI host clock ahead of the database', () => {
  let tdb: TestDatabase;
  const saved = process.env.DATABASE_URL;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    process.env.DATABASE_URL = tdb.url;
  });
  afterAll(async () => {
    process.env.DATABASE_URL = saved;
    await tdb?.drop();
  });
  afterEach(() => jest.restoreAllMocks());

  /** Runs the command with the process clock `SKEW_MS` ahead; its exit code and what it printed. */
  async function runSkewed(command: typeof claimsCommand, args: string[]): Promise<{ code: number; out: string }> {
    const lines: string[] = [];
    const io: CliIo = { out: (line) => lines.push(line), err: (line) => lines.push(line), stdin: process.stdin };
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + SKEW_MS);
    const code = await command.run(args, io, loadEnv());
    return { code, out: lines.join('\n') };
  }

  /** The instant in `line` after `before`, less the database's now() less 90 days, in ms. */
  async function cutoffOffset(line: string, before: string): Promise<number> {
    const printed = new RegExp(`${before} (\\S+)`).exec(line)?.[1];
    const { rows } = await tdb.pool.query<{ at: Date }>("SELECT now() - interval '90 days' AS at");
    return Date.parse(printed ?? 'not printed') - (rows[0] as { at: Date }).at.getTime();
  }

  it('claims prune keeps a claim referenced just now and deletes one the database dates 100 days back', async () => {
    const insert = `INSERT INTO ce_payload_claim (claim_hash, body, size_bytes, last_referenced_at)
                    VALUES ($1, '\\x00', 1, now() - $2 * interval '1 day')`;
    await tdb.pool.query(insert, ['a'.repeat(64), 0]);
    await tdb.pool.query(insert, ['b'.repeat(64), 100]);

    const run = await runSkewed(claimsCommand, ['prune', '--older-than', '90d']);
    expect(run).toMatchObject({ code: 0, out: expect.stringMatching(/^pruned 1 claim\(s\)/) });
    expect(Math.abs(await cutoffOffset(run.out, 'last referenced before'))).toBeLessThan(60_000);
    const left = await tdb.pool.query<{ claim_hash: string }>('SELECT claim_hash FROM ce_payload_claim');
    expect(left.rows.map((r) => r.claim_hash)).toEqual(['a'.repeat(64)]);
  });

  it('conversations prune --dry-run counts only what the database dates before its own now() less the age', async () => {
    const insert = `INSERT INTO ce_conversation (conversation_id, turn_count, created_at, updated_at)
                    VALUES ($1, 0, now() - $2 * interval '1 day', now() - $2 * interval '1 day')`;
    await tdb.pool.query(insert, [randomUUID(), 0]);
    await tdb.pool.query(insert, [randomUUID(), 100]);

    const run = await runSkewed(conversationsCommand, ['prune', '--older-than', '90d', '--dry-run']);
    expect(run).toMatchObject({ code: 0, out: expect.stringMatching(/^would prune 1 conversation\(s\)/) });
    expect(Math.abs(await cutoffOffset(run.out, 'idle since before'))).toBeLessThan(60_000);
  });
});
