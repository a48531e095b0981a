import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { embeddedLayout, EmbeddedPostgresError, startEmbeddedPostgres, type EmbeddedPostgres } from '../../db/embedded';
import { migrate } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import { databaseNameOf, toolsRoleOf } from '../../db/tools-role-names';
import { toolsDatabaseUrl } from '../../db/tools-role';
import { newHome } from '../support/embedded-stack';

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  // The restart test stops the server under open sessions; their end is expected.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

const portOf = (url: string) => Number(new URL(url).port);
const toolsRoleAt = (url: string) => toolsRoleOf(databaseNameOf(url));

describe('the embedded PostgreSQL (issue #20)', () => {
  const home = newHome();
  let pg: EmbeddedPostgres;
  const clients: Client[] = [];
  const open = async (url = pg.url) => {
    const client = await connect(url);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    pg = await startEmbeddedPostgres(home);
    const handle = openDatabase(pg.url, { max: 2 });
    try {
      await migrate(handle.pool);
    } finally {
      await handle.close();
    }
  });

  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => undefined);
    await pg.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('gives every connection its own session: a role or setting on one is not seen by another', async () => {
    const a = await open();
    const b = await open();
    await a.query(`SET ROLE ${toolsRoleAt(pg.url)}`);
    // Long enough never to cancel the checks themselves on a slow machine; only its visibility matters.
    await a.query(`SET statement_timeout = '7min'`);
    expect((await a.query('SELECT current_user AS u')).rows[0].u).toBe(toolsRoleAt(pg.url));
    expect((await a.query(`SELECT current_setting('statement_timeout') AS t`)).rows[0].t).toBe('7min');
    expect((await b.query('SELECT current_user AS u')).rows[0].u).toBe('postgres');
    expect((await b.query(`SELECT current_setting('statement_timeout') AS t`)).rows[0].t).toBe('0');
    expect((await b.query('SELECT pg_backend_pid() AS p')).rows[0].p).not.toBe(
      (await a.query('SELECT pg_backend_pid() AS p')).rows[0].p
    );
  });

  it('applies the LZ4 migration on binaries built without LZ4: the columns keep pglz', async () => {
    const client = await open();
    const unsupported = client.query('CREATE TEMP TABLE lz4_probe (v text COMPRESSION lz4)');
    await expect(unsupported).rejects.toMatchObject({ code: '0A000' });
    const { rows } = await client.query<{ compression: string }>(
      `SELECT attcompression AS compression FROM pg_attribute
        WHERE attrelid = 'ce_audit'::regclass AND attname = 'payload_json'`
    );
    expect(rows).toEqual([{ compression: '' }]);
    const applied = await client.query(`SELECT 1 FROM ce_schema_migrations WHERE name = '0015_lz4_compression.sql'`);
    expect(applied.rowCount).toBe(1);
  });

  it('has the SQL tools role of an external PostgreSQL: its own login, read only, server-side limits', async () => {
    const tools = await open(toolsDatabaseUrl(pg.url));
    expect((await tools.query('SELECT current_user AS u')).rows[0].u).toBe(toolsRoleAt(pg.url));
    expect((await tools.query('SHOW default_transaction_read_only')).rows[0].default_transaction_read_only).toBe('on');
    expect((await tools.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('1min');
    await expect(tools.query('SELECT count(*) FROM public.ce_conversation')).rejects.toThrow(/permission denied/);
    await expect(tools.query('CREATE TABLE business.x (id int)')).rejects.toThrow(/read-only|permission denied/);
    await expect(tools.query(`SET ROLE postgres`)).rejects.toThrow(/permission denied/);
    const wrong = toolsDatabaseUrl(pg.url).replace(/:[0-9a-f]{64}@/, ':not-the-password@');
    await expect(connect(wrong)).rejects.toThrow(/password authentication failed/);
  });

  it('enforces statement_timeout', async () => {
    const client = await open();
    await client.query(`SET statement_timeout = '50ms'`);
    await expect(client.query('SELECT pg_sleep(2)')).rejects.toThrow(/statement timeout/);
  });

  it('keeps its data across a restart, on the same port when it is free and on another when it is taken', async () => {
    const client = await connect(pg.url);
    await client.query('CREATE TABLE kept (v text)');
    await client.query(`INSERT INTO kept VALUES ('still here')`);
    await client.end();
    const firstPort = portOf(pg.url);
    await pg.stop();
    pg = await startEmbeddedPostgres(home);
    expect(portOf(pg.url)).toBe(firstPort);

    await pg.stop();
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(firstPort, '127.0.0.1', resolve));
    try {
      pg = await startEmbeddedPostgres(home);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    expect(portOf(pg.url)).not.toBe(firstPort);
    const again = await open();
    expect((await again.query('SELECT v FROM kept')).rows).toEqual([{ v: 'still here' }]);
  });
});

describe('what an earlier start left in --home', () => {
  const home = newHome();
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('refuses a second start while the first one runs, and leaves that one serving', async () => {
    const pg = await startEmbeddedPostgres(home);
    try {
      await expect(startEmbeddedPostgres(home)).rejects.toThrow(/A convengine process \(pid \d+\) is running on/);
      const client = await connect(pg.url);
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
    } finally {
      await pg.stop();
    }
  });

  it('starts over a stale postmaster.pid whose pid now belongs to another program', async () => {
    const other = spawn('sleep', ['60']);
    try {
      const dataDir = embeddedLayout(home).dataDir;
      writeFileSync(join(dataDir, 'postmaster.pid'), `${other.pid}\n${dataDir}\n0\n5432\n\n127.0.0.1\n0 0\nready   \n`);
      const pg = await startEmbeddedPostgres(home);
      await pg.stop();
      expect(other.exitCode).toBeNull();
    } finally {
      other.kill();
    }
  });

  /** A process named `postgres` that is no server (sleep under that name), in `cwd`. */
  function fakePostgres(cwd: string) {
    // A directory of its own: an earlier test's fake may still be exiting, its file busy (ETXTBSY) until it has.
    const bin = mkdtempSync(join(home, 'bin-'));
    copyFileSync('/bin/sleep', join(bin, 'postgres'));
    return spawn(join(bin, 'postgres'), ['60'], { cwd });
  }

  const writePid = (pid: number | undefined, servedDir: string) =>
    writeFileSync(
      join(embeddedLayout(home).dataDir, 'postmaster.pid'),
      `${pid}\n${servedDir}\n0\n5432\n\n127.0.0.1\n0 0\nready   \n`
    );

  it.each([
    ['names another data directory', '/other/data'],
    ['names this data directory but the process serves none', 'this'],
  ])('leaves alone a program named postgres that a stale postmaster.pid %s, and starts', async (_case, served) => {
    const dataDir = embeddedLayout(home).dataDir;
    const other = fakePostgres(os.tmpdir());
    try {
      writePid(other.pid, served === 'this' ? dataDir : served);
      const pg = await startEmbeddedPostgres(home);
      await pg.stop();
      expect(other.exitCode).toBeNull();
      expect(other.signalCode).toBeNull();
    } finally {
      other.kill();
    }
  });

  it("refuses, stopping nothing, when a program named postgres runs in this data directory under another one's postmaster.pid", async () => {
    const dataDir = embeddedLayout(home).dataDir;
    const other = fakePostgres(dataDir);
    try {
      writePid(other.pid, '/other/data');
      await expect(startEmbeddedPostgres(home)).rejects.toThrow(
        /a running PostgreSQL that may serve .*nothing was stopped/
      );
      expect(other.exitCode).toBeNull();
      expect(other.signalCode).toBeNull();
      expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(true);
    } finally {
      other.kill();
      rmSync(join(dataDir, 'postmaster.pid'), { force: true });
    }
  });
});

describe('an embedded PostgreSQL that cannot start', () => {
  it('refuses a --home with a PGlite data directory from an earlier version, deleting nothing', async () => {
    const home = newHome();
    const legacy = join(home, 'pgdata');
    mkdirSync(join(legacy, 'base'), { recursive: true });
    writeFileSync(join(legacy, 'PG_VERSION'), '17\n');
    try {
      const start = startEmbeddedPostgres(home);
      await expect(start).rejects.toThrow(EmbeddedPostgresError);
      await expect(start).rejects.toThrow(/PGlite.*export.*mv .*pgdata/);
      expect(readdirSync(legacy).sort()).toEqual(['PG_VERSION', 'base']);
      expect(readdirSync(home)).toEqual(['pgdata']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('names DATABASE_URL in one line when the platform has no binary package', async () => {
    const arch = jest.spyOn(os, 'arch').mockReturnValue('sparc' as ReturnType<typeof os.arch>);
    const home = newHome();
    try {
      const start = startEmbeddedPostgres(home);
      await expect(start).rejects.toThrow(EmbeddedPostgresError);
      await expect(start).rejects.toThrow(/^No embedded PostgreSQL for linux-sparc .*set DATABASE_URL[^\n]*$/);
    } finally {
      arch.mockRestore();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
