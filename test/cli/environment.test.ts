/**
 * Every command checks the whole environment the same way before it does anything, and an invalid one ends it with
 * exit 2 and every reason: `migrate` shares its environment with the worker and the API (docker-compose), so a typo
 * that would crash-loop them must stop it too. Run in-process: the check comes before a command reads its arguments.
 */
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { commands } from '../../cli/commands';
import { runCli } from '../../cli/main';
import { SURROUNDING_WHITESPACE } from '../../config/env-values';
import { runConvengine } from '../support/run-cli';

const INVALID = {
  LOG_LEVEL: 'verbose',
  PORT: '0xA8A4',
  LOG_FORMAT: 'xml',
  TEMPORAL_ADDRESS: 'http://x',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318',
  API_TOKEN: '   ',
  // Invalid too, so that a command that would not check (the old migrate, seed, claims) connects nowhere.
  DATABASE_URL: 'nope',
};

const REASONS = [
  'Invalid environment (7 variable(s)):',
  '  DATABASE_URL: must be a postgres:// or postgresql:// URL',
  '  TEMPORAL_ADDRESS: must be host:port with a port from 1 to 65535, e.g. localhost:7233',
  '  PORT: must be a whole number in decimal digits, e.g. 3000',
  '  API_TOKEN: is set but blank: give it a value, or unset it (unset: every route is served without a token)',
  '  LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
  '  LOG_FORMAT: must be one of json, pretty',
  '  OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL',
];

/** The worker also needs a model, and says so in the same list (config/env.ts, a command's needs). */
const WORKER_REASONS = [
  'Invalid environment (8 variable(s)):',
  ...REASONS.slice(1),
  '  ANTHROPIC_API_KEY: is not set, nor ANTHROPIC_BASE_URL: no LLM is configured; set ANTHROPIC_API_KEY (Anthropic) ' +
    'or ANTHROPIC_BASE_URL (a Messages API server); `convengine start` alone runs the keyless demo model',
];

/** A Temporal and a database nobody answers at: a start that got past the environment would fail on them. */
const UNREACHABLE = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' };

async function cli(
  args: string[],
  env: Record<string, string>
): Promise<{ code: number; out: string[]; err: string[] }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  try {
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), stdin: Readable.from([]) };
    return { code: await runCli(args, io), out, err };
  } finally {
    for (const name of Object.keys(env)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

describe('an invalid environment', () => {
  it.each(commands.map((c) => c.name))('stops `convengine %s` with exit 2, listing every variable', async (name) => {
    const run = await cli([name], INVALID);
    expect({ code: run.code, out: run.out }).toEqual({ code: 2, out: [] });
    expect(run.err.join('\n').split('\n')).toEqual(name === 'worker' ? WORKER_REASONS : REASONS);
  });

  it('leaves --help alone: it reads no environment', async () => {
    const run = await cli(['migrate', '--help'], INVALID);
    expect(run.code).toBe(0);
    expect(run.out[0]).toMatch(/^Usage: convengine migrate \[--bind-deployment\]\n/);
  });

  it('found after the start (a TLS file a command cannot read) ends the command the same way', async () => {
    const missing = join(__dirname, 'missing-ca.pem');
    const run = await cli(['history', 'turn-x-1'], { TEMPORAL_TLS_SERVER_CA_CERT_PATH: missing });
    expect(run).toEqual({
      code: 2,
      out: [],
      err: [
        `Invalid environment (1 variable(s)):\n  TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read ${missing} (ENOENT)`,
      ],
    });
  });

  it('is listed with the exit codes of `convengine --help`', async () => {
    const run = await cli(['--help'], {});
    expect(run.out.at(-1)).toMatch(/^Exit codes: 0 done, 1 failed .*, 2 usage error or invalid environment/);
  });
});

describe('a blank API_TOKEN', () => {
  // An outsider's deploy: API_TOKEN='   ' served every route without a token, with only an info log line to say so.
  it('stops `convengine api` before it listens, naming API_TOKEN', async () => {
    const env = { API_TOKEN: '   ', PORT: '43904', ...UNREACHABLE };
    const run = await runConvengine(['api'], env, 40_000);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `Invalid environment (1 variable(s)):\n  ${REASONS[4]?.trim()}\n`,
    });
  }, 45_000);
});

describe.each(['api', 'worker'])('a secret with whitespace around it, under `convengine %s`', (command) => {
  // API_TOKEN=' abc ' (a secrets file's trailing newline) was kept: every API call got 401, with no hint why.
  it('stops the start with exit 2, naming the variable and never its value', async () => {
    const env = {
      API_TOKEN: ' s3cret-token\n',
      TEMPORAL_API_KEY: 'temporal-key\n',
      PORT: '43150',
      ...UNREACHABLE,
      ANTHROPIC_API_KEY: 'sk-test',
    };
    const run = await runConvengine([command], env, 40_000);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'Invalid environment (2 variable(s)):\n' +
        `  API_TOKEN: ${SURROUNDING_WHITESPACE}\n` +
        `  TEMPORAL_API_KEY: ${SURROUNDING_WHITESPACE}\n`,
    });
    expect(run.stderr).not.toMatch(/s3cret|temporal-key/);
  }, 45_000);
});
