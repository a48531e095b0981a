import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { existsSync, rmSync } from 'node:fs';
import { Client } from 'pg';
import { DEMO_MESSAGES } from '../../demo/conversations';
import { EMBEDDED_ENV, processAlive, newHome, startEmbeddedStack, type EmbeddedStack } from '../support/embedded-stack';

const BIN = join(__dirname, '..', '..', 'bin', 'convengine.js');

/** Every process whose command line names this data directory (postmaster and backends). */
function serverProcesses(home: string): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.includes(`${home}/postgres/data`) && !line.includes(' ps '));
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

async function sendTurn(apiUrl: string): Promise<string> {
  const response = await fetch(`${apiUrl}/api/v1/conversation/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: DEMO_MESSAGES.greeting }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { conversationId: string }).conversationId;
}

describe('convengine start on the embedded PostgreSQL (issue #20)', () => {
  const home = newHome();
  let stack: EmbeddedStack | null = null;

  afterAll(async () => {
    await stack?.process.kill('SIGKILL');
    for (const line of serverProcesses(home)) process.kill(Number(line.trim().split(' ')[0]), 'SIGQUIT');
    rmSync(home, { recursive: true, force: true });
  });

  it('prints the URL with the password masked, and the server takes only that password', async () => {
    stack = await startEmbeddedStack(home);
    expect(stack.process.tail()).toMatch(
      /embedded PostgreSQL: server at postgres:\/\/postgres:\*\*\*\*@127\.0\.0\.1:\d+\/postgres/
    );
    const password = new URL(stack.databaseUrl).password;
    expect(stack.process.tail()).not.toContain(password);
    const [row] = await query<{ user: string }>(stack.databaseUrl, 'SELECT current_user AS user');
    expect(row?.user).toBe('postgres');
    const withoutPassword = stack.databaseUrl.replace(`:${password}@`, '@');
    await expect(query(withoutPassword, 'SELECT 1')).rejects.toThrow(/password/);
  });

  it('a Ctrl-C while it starts stops it once up, and more Ctrl-Cs do not leave the database server behind', async () => {
    const early = newHome();
    try {
      const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--temporal-port', '0', '--home', early], {
        env: { ...process.env, CONVENGINE_USE_SOURCES: '1', ...EMBEDDED_ENV },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      // Its database directory appears once the command runs (and listens for signals); Node's own start comes first.
      for (let i = 0; i < 600 && !existsSync(join(early, 'postgres')); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const pause of [0, 500, 500]) {
        await new Promise((resolve) => setTimeout(resolve, pause));
        child.kill('SIGINT');
      }
      expect(await exited).toBe(0);
      expect(output).toContain('stopping as soon as the stack is up');
      expect(serverProcesses(early)).toEqual([]);
    } finally {
      for (const line of serverProcesses(early)) process.kill(Number(line.trim().split(' ')[0]), 'SIGQUIT');
      rmSync(early, { recursive: true, force: true });
    }
  });

  it('stops its database server on SIGTERM: no postgres process stays behind', async () => {
    if (!stack) throw new Error('no stack');
    await sendTurn(stack.apiUrl);
    const serverPid = stack.serverPid;
    await stack.process.stop(30_000);
    expect(processAlive(serverPid)).toBe(false);
    expect(serverProcesses(home)).toEqual([]);
  });

  it('after kill -9 the next start on the same --home comes up with every committed turn', async () => {
    stack = await startEmbeddedStack(home, 'start (reuse)');
    const conversationId = await sendTurn(stack.apiUrl);
    const orphan = stack.serverPid;
    await stack.process.kill('SIGKILL');
    // Its server is in its own process group: it survives, holding postmaster.pid and the port.
    expect(processAlive(orphan)).toBe(true);

    stack = await startEmbeddedStack(home, 'start (after kill -9)');
    expect(processAlive(orphan)).toBe(false);
    const rows = await query<{ n: number }>(stack.databaseUrl, `SELECT count(*)::int AS n FROM ce_conversation`);
    expect(rows[0]?.n).toBe(2);
    const history = await query<{ n: number }>(
      stack.databaseUrl,
      `SELECT count(*)::int AS n FROM ce_conversation_history WHERE conversation_id = '${conversationId}'`
    );
    expect(history[0]?.n).toBe(1);
  });

  it('stops on SIGINT while turns are in flight: each caller is answered, then the database server stops', async () => {
    if (!stack) throw new Error('no stack');
    const { apiUrl, serverPid } = stack;
    // Callers that keep a turn in flight until the API stops answering: what a user's gateway does under load.
    const statuses: (number | string)[] = [];
    let stopping = false;
    const caller = async () => {
      while (!stopping) {
        const status = await fetch(`${apiUrl}/api/v1/conversation/message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: DEMO_MESSAGES.greeting }),
        }).then(
          async (r) => (await r.text(), r.status),
          () => 'refused'
        );
        statuses.push(status);
        if (status !== 200) return;
      }
    };
    const callers = Array.from({ length: 16 }, caller);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const asked = Date.now();
    await stack.process.kill('SIGINT');
    const tookMs = Date.now() - asked;
    stopping = true;
    await Promise.all(callers);
    // The SDK once stopped the worker on SIGINT at once, so the API waited a minute on turns that could not end;
    // then sockets answered during the drain held the close for their keep-alive timeout (72 s).
    expect(tookMs).toBeLessThan(30_000);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => ![200, 202, 503, 'refused'].includes(s))).toEqual([]);
    expect(processAlive(serverPid)).toBe(false);
    expect(serverProcesses(home)).toEqual([]);
  });
});
