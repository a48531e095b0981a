import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { DYNAMIC_CONFIG_FILE, dynamicConfigFlags } from '../../cli/temporal/dynamic-config';
import { API_DRAIN_MS } from '../../api/server';
import { API_SHUTDOWN_DELAY_DEFAULT_MS, ENV_VARIABLES, WORKER_SHUTDOWN_GRACE_DEFAULT_MS } from '../../config/env';
import { commands } from '../../cli/commands';
import { DEMO_API_KEY } from '../../demo/tool-server';
import { unsetToolVariables } from '../../core/mcp/tool-env';
import { TOOL_ENV_PREFIX } from '../../core/config/vocabulary';
import { packConfigRows, SEED_PACKS } from '../../db/seed';
import { SHUTDOWN_FORCE_MARGIN_MS } from '../../worker/worker';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

interface Service {
  image?: string;
  build?: unknown;
  command?: unknown;
  entrypoint?: unknown;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: unknown };
  volumes?: string[];
  profiles?: string[];
  stop_grace_period?: string;
}

const root = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;

function service(name: string): Service {
  const s = services[name];
  if (!s) throw new Error(`service ${name} missing from docker-compose.yml`);
  return s;
}

/** The services built from this repository: their commands are the CLI's, their variables the code's. */
const appServices = Object.entries(services).filter(([, s]) => s.image?.startsWith('convengine:'));

/** `${VAR:-default}` as compose reads it with VAR unset: the default. */
function defaulted(value: string): string {
  return value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
}

/** The `convengine <command>`s a service runs: its command array's, or each one its shell command names. */
function cliCommandsOf(command: unknown): string[] {
  const text = Array.isArray(command) ? command.join(' ') : String(command);
  return [...text.matchAll(/bin\/convengine\.js (\S+)/g)].map((m) => m[1] ?? '');
}

function versionOf(image: string): number[] {
  const tag = image.slice(image.indexOf(':') + 1);
  const defaulted = /:-([^}]+)\}/.exec(tag)?.[1] ?? tag;
  return defaulted.split('.').map((n) => Number.parseInt(n, 10));
}

function atLeast(actual: number[], minimum: number[]): boolean {
  for (let i = 0; i < minimum.length; i++) {
    const a = actual[i] ?? 0;
    const m = minimum[i] ?? 0;
    if (a !== m) return a > m;
  }
  return true;
}

describe('docker-compose.yml', () => {
  it('has every service of the real deployment', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'api',
        'demo-tools',
        'jaeger',
        'migrate',
        'otel-collector',
        'postgresql',
        'temporal',
        'temporal-bootstrap',
        'temporal-schema',
        'temporal-ui',
        'worker',
      ].sort()
    );
  });

  it('pins Temporal server/admin-tools >= 1.28 and the UI >= 2.47, never auto-setup', () => {
    expect(service('temporal').image).toMatch(/^temporalio\/server:/);
    expect(atLeast(versionOf(service('temporal').image ?? ''), [1, 28])).toBe(true);
    expect(service('temporal-schema').image).toMatch(/^temporalio\/admin-tools:/);
    expect(atLeast(versionOf(service('temporal-schema').image ?? ''), [1, 28])).toBe(true);
    expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
    expect(atLeast(versionOf(service('temporal-ui').image ?? ''), [2, 47])).toBe(true);
    expect(JSON.stringify(compose)).not.toContain('auto-setup');
  });

  it('gates start-up on health and completed one-shot jobs', () => {
    const dep = (name: string, on: string) => service(name).depends_on?.[on]?.condition;
    expect(service('postgresql').healthcheck).toBeDefined();
    expect(service('temporal').healthcheck).toBeDefined();
    expect(dep('temporal-schema', 'postgresql')).toBe('service_healthy');
    expect(dep('temporal', 'temporal-schema')).toBe('service_completed_successfully');
    expect(dep('temporal-bootstrap', 'temporal')).toBe('service_healthy');
    expect(dep('temporal-ui', 'temporal')).toBe('service_healthy');
    expect(dep('migrate', 'postgresql')).toBe('service_healthy');
    for (const app of ['worker', 'api']) {
      expect(dep(app, 'migrate')).toBe('service_completed_successfully');
      expect(dep(app, 'temporal-bootstrap')).toBe('service_completed_successfully');
    }
  });

  it('keeps the trace collector and viewer behind the tracing profile, the app exporting only when told', () => {
    for (const name of ['otel-collector', 'jaeger']) expect(service(name).profiles).toEqual(['tracing']);
    const withProfile = Object.entries(services).filter(([, s]) => s.profiles !== undefined);
    expect(withProfile.map(([name]) => name).sort()).toEqual(['jaeger', 'otel-collector']);
    for (const app of ['worker', 'api']) {
      expect(service(app).environment?.['OTEL_EXPORTER_OTLP_ENDPOINT']).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT:-}');
    }
    expect(service('worker').healthcheck).toBeDefined();
  });

  it('lets the worker and the API drain on a stop before Docker kills them (its default is 10 s)', () => {
    const graceMs = (name: string) => {
      const period = /^(\d+)s$/.exec(service(name).stop_grace_period ?? '');
      if (!period?.[1]) throw new Error(`${name} has no stop_grace_period in seconds`);
      return Number(period[1]) * 1000;
    };
    expect(graceMs('worker')).toBeGreaterThan(WORKER_SHUTDOWN_GRACE_DEFAULT_MS + SHUTDOWN_FORCE_MARGIN_MS);
    expect(graceMs('api')).toBeGreaterThan(API_SHUTDOWN_DELAY_DEFAULT_MS + API_DRAIN_MS);
  });

  it('gives the app services the environment they require', () => {
    for (const app of ['migrate', 'worker', 'api']) {
      const env = service(app).environment ?? {};
      for (const key of [
        'DATABASE_URL',
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'TEMPORAL_TASK_QUEUE',
        'TOOLS_DATABASE_URL',
      ]) {
        expect(env[key]).toBeTruthy();
      }
      expect(env['TEMPORAL_ADDRESS']).toBe('temporal:7233');
    }
    expect(service('worker').environment?.['ANTHROPIC_API_KEY']).toMatch(/ANTHROPIC_API_KEY/);
    expect(service('api').environment?.['API_TOKEN']).toMatch(/API_TOKEN/);
    expect(service('api').environment?.['TEMPORAL_UI_URL']).toBe('${TEMPORAL_UI_URL:-http://localhost:8080}');
    expect(service('migrate').build).toBeDefined();
  });

  it('runs only commands the CLI has', () => {
    const names = new Set(commands.map((c) => c.name));
    expect(appServices.length).toBeGreaterThanOrEqual(5);
    for (const [name, s] of appServices) {
      const run = cliCommandsOf(s.command);
      expect({ name, run: run.length > 0 }).toEqual({ name, run: true });
      for (const command of run)
        expect({ name, command, known: names.has(command) }).toEqual({ name, command, known: true });
    }
  });

  it('sets on the app services only variables the code reads', () => {
    const known = new Set<string>(ENV_VARIABLES);
    for (const [name, s] of appServices) {
      for (const variable of Object.keys(s.environment ?? {})) {
        // Tool rows read CONVENGINE_TOOL_* (their own names); the migrate job's shell reads SEED_PACKS.
        const read =
          known.has(variable) ||
          variable.startsWith(TOOL_ENV_PREFIX) ||
          (variable === 'SEED_PACKS' && String(s.command).includes('$$SEED_PACKS'));
        expect({ name, variable, read }).toEqual({ name, variable, read: true });
      }
    }
  });

  it("answers the seed conversations: the worker's tool variables reach the demo-tools service, with its key", () => {
    const worker = service('worker').environment ?? {};
    const toolEnv = Object.fromEntries(Object.entries(worker).map(([k, v]) => [k, defaulted(v)]));
    expect(unsetToolVariables(packConfigRows(SEED_PACKS), toolEnv)).toEqual([]);
    const tools = service('demo-tools');
    expect(cliCommandsOf(tools.command)).toEqual(['demo-tools']);
    expect(tools.command).toEqual(expect.arrayContaining(['--host', '0.0.0.0', '--port', '8090']));
    expect(toolEnv['CONVENGINE_TOOL_DEMO_URL']).toBe('http://demo-tools:8090');
    const key = tools.environment?.['CONVENGINE_TOOL_DEMO_API_KEY'] ?? '';
    expect(worker['CONVENGINE_TOOL_DEMO_API_KEY']).toBe(key);
    expect(key).toBe(`\${CONVENGINE_TOOL_DEMO_API_KEY:-${DEMO_API_KEY}}`);
  });

  it('bootstraps the namespace and search attributes with convengine setup-temporal, from one list', () => {
    const bootstrap = service('temporal-bootstrap');
    expect(bootstrap.image).toBe(service('migrate').image);
    expect(bootstrap.command).toEqual(expect.arrayContaining(['bin/convengine.js', 'setup-temporal']));
    // The attribute names live in workflows/search-attributes.ts only, not in deploy/.
    const deployFiles = readdirSync(join(root, 'deploy'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
    for (const name of Object.keys(TURN_SEARCH_ATTRIBUTES)) {
      expect(deployFiles.filter((text) => text.includes(name))).toEqual([]);
    }
    const schema = readFileSync(join(root, 'deploy', 'temporal', 'setup-schema.sh'), 'utf8');
    expect(schema).toContain('temporal_visibility');
    const init = readFileSync(join(root, 'deploy', 'db', 'init', '01-convengine.sh'), 'utf8');
    expect(init).toContain('convengine_tools_ro');
  });

  it('gives the server the one dynamic config that temporal server start-dev also gets', () => {
    const path = service('temporal').environment?.['DYNAMIC_CONFIG_FILE_PATH'] ?? '';
    expect(path.split('/').at(-1)).toBe(basename(DYNAMIC_CONFIG_FILE));
    expect(service('temporal').volumes).toContain(
      `./${dirname(DYNAMIC_CONFIG_FILE)}:/etc/temporal/config/dynamicconfig:ro`
    );
    const flags = dynamicConfigFlags(readFileSync(join(root, DYNAMIC_CONFIG_FILE), 'utf8'));
    expect(flags).toEqual(
      expect.arrayContaining(['history.transferProcessorMaxPollRPS=1000', 'system.enableActivityEagerExecution=true'])
    );
  });

  it('builds the app image in stages with pre-bundled workflows', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toContain('bundle:workflows');
    expect(dockerfile).not.toMatch(/FROM node:[^\n]*alpine/);
  });
});
