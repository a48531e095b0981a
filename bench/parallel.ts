import { rmSync } from 'node:fs';
import { ConvengineProcess } from '../test/support/child-processes';
import { createTestDatabase } from '../test/support/database';
import { EMBEDDED_ENV, newHome } from '../test/support/embedded-stack';
import { parallelConversations } from '../test/support/parallel-conversations';

/**
 * Benchmark (issue #20): 50 conversations started at once through the HTTP API of `convengine start`,
 * on its embedded PostgreSQL and, same stack otherwise, on the external PostgreSQL at DATABASE_URL.
 * Wall time per round and how many turns did not answer 200. Measures only.
 */
export interface ParallelBench {
  name: 'parallel';
  conversations: number;
  embedded: RoundFigures;
  external: RoundFigures;
}

export interface RoundFigures {
  wallMs: number[];
  failedTurns: number;
}

async function rounds(databaseUrl: string, conversations: number, count: number): Promise<RoundFigures> {
  const home = newHome();
  const proc = await ConvengineProcess.start(['start', '--port', '0', '--temporal-port', '0', '--home', home], {
    name: 'start',
    env: { ...EMBEDDED_ENV, DATABASE_URL: databaseUrl },
    ready: /ConvEngine ready in/,
    readyTimeoutMs: 180_000,
  });
  try {
    const apiUrl = proc.match(/API (http:\/\/127\.0\.0\.1:\d+)/);
    if (!apiUrl) throw new Error(`no API URL in: ${proc.tail()}`);
    const figures: RoundFigures = { wallMs: [], failedTurns: 0 };
    for (let i = 0; i < count; i++) {
      const round = await parallelConversations(apiUrl, conversations);
      figures.wallMs.push(round.wallMs);
      figures.failedTurns += round.statuses.filter((s) => s !== 200).length;
    }
    return figures;
  } finally {
    await proc.stop(30_000);
    rmSync(home, { recursive: true, force: true });
  }
}

export async function benchParallel(conversations = 50, count = 2): Promise<ParallelBench> {
  const embedded = await rounds('', conversations, count);
  const tdb = await createTestDatabase();
  try {
    const external = await rounds(tdb.url, conversations, count);
    return { name: 'parallel', conversations, embedded, external };
  } finally {
    await tdb.drop();
  }
}

const seconds = (values: number[]) => values.map((ms) => (ms / 1000).toFixed(1)).join(' / ');

if (require.main === module) {
  void benchParallel().then((r) => {
    for (const [label, f] of [
      ['embedded PostgreSQL', r.embedded],
      ['external PostgreSQL', r.external],
    ] as const) {
      console.log(
        `${r.conversations} parallel conversations, ${label}: ${seconds(f.wallMs)} s, ${f.failedTurns} failed turns`
      );
    }
    process.exit(0);
  });
}
