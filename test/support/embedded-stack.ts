import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedLayout } from '../../db/embedded';
import { readPostmasterPid } from '../../db/embedded/leftovers';
import { ConvengineProcess } from './child-processes';

export { processAlive } from '../../db/embedded/leftovers';

/** `convengine start` on embedded defaults only: its own PostgreSQL, our dev server, scripted LLM. */
export const EMBEDDED_ENV: Record<string, string> = {
  DATABASE_URL: '',
  TEMPORAL_ADDRESS: '',
  CONVENGINE_TEMPORAL: 'embedded',
  ANTHROPIC_API_KEY: '',
  ANTHROPIC_BASE_URL: '',
  CONVENGINE_TOOL_DEMO_URL: '',
};

export interface EmbeddedStack {
  process: ConvengineProcess;
  home: string;
  apiUrl: string;
  /** The embedded database with its password (the banner prints it masked). */
  databaseUrl: string;
  /** The PostgreSQL server's pid (postmaster.pid). */
  serverPid: number;
}

export const newHome = (): string => mkdtempSync(join(tmpdir(), 'ce-embedded-'));

/** Starts `convengine start --home <home>` (`env` over EMBEDDED_ENV) and reads back where its API and database are. */
export async function startEmbeddedStack(
  home: string,
  name = 'start',
  env: Record<string, string> = {}
): Promise<EmbeddedStack> {
  const proc = await ConvengineProcess.start(['start', '--port', '0', '--temporal-port', '0', '--home', home], {
    name,
    env: { ...EMBEDDED_ENV, ...env },
    ready: /ConvEngine ready in/,
    readyTimeoutMs: 120_000,
  });
  const apiUrl = proc.match(/API (http:\/\/127\.0\.0\.1:\d+)/);
  const masked = proc.match(/PostgreSQL: server at (postgres:\/\/\S+)/);
  const layout = embeddedLayout(home);
  const server = readPostmasterPid(layout.dataDir);
  if (!apiUrl || !masked || !server) {
    await proc.stop(30_000);
    throw new Error(`start printed no API or database URL:\n${proc.tail()}`);
  }
  const password = readFileSync(layout.passwordFile, 'utf8').trim();
  return { process: proc, home, apiUrl, databaseUrl: masked.replace('****', password), serverPid: server.pid };
}

/** Pids of the processes whose command line contains `text` (a --home path names a stack's servers). */
export function processesNaming(text: string): number[] {
  const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return ps
    .split('\n')
    .filter((line) => line.includes(text) && !line.includes(' ps '))
    .map((line) => Number(line.trim().split(' ')[0]));
}

/** Waits (at most `ms`) until no process's command line contains `text`; returns the pids still left. */
export async function processesGoneWithin(text: string, ms: number): Promise<number[]> {
  const until = performance.now() + ms;
  while (processesNaming(text).length > 0 && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return processesNaming(text);
}
