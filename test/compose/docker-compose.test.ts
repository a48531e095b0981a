import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { DYNAMIC_CONFIG_FILE, dynamicConfigFlags } from '../../cli/temporal/dynamic-config';
import { API_DRAIN_MS } from '../../api/server';
import { API_SHUTDOWN_DELAY_DEFAULT_MS, WORKER_SHUTDOWN_GRACE_DEFAULT_MS } from '../../config/env';
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
