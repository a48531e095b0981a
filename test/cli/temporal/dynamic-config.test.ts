import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  DYNAMIC_CONFIG_FILE,
  DynamicConfigMissingError,
  dynamicConfigFlags,
  dynamicConfigPath,
} from '../../../cli/temporal/dynamic-config';
import { startDevArgs } from '../../../cli/temporal/server';
import { TURN_SEARCH_ATTRIBUTES } from '../../../workflows/search-attributes';

describe('the shared dynamic config as start-dev flags', () => {
  it('turns each unconstrained value into KEY=<JSON>', () => {
    const flags = dynamicConfigFlags(readFileSync(dynamicConfigPath(), 'utf8'));
    expect(flags).toEqual([
      'limit.maxIDLength=255',
      'frontend.enableUpdateWorkflowExecution=true',
      'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
      'history.transferProcessorMaxPollRPS=1000',
      'system.enableActivityEagerExecution=true',
    ]);
  });

  it('refuses what start-dev cannot express rather than run a different config', () => {
    expect(() => dynamicConfigFlags('a.b:\n  - value: 1\n    constraints: { namespace: x }\n')).toThrow(/constraints/);
    expect(() => dynamicConfigFlags('a.b:\n  - value: 1\n  - value: 2\n')).toThrow(/exactly one/);
    expect(() => dynamicConfigFlags('a.b: 3\n')).toThrow(/exactly one/);
    expect(dynamicConfigFlags('x.s:\n  - value: "5s"\n')).toEqual(['x.s="5s"']);
  });

  it('starts the real server on loopback with our namespace, every turn search attribute and the shipped config', () => {
    const args = startDevArgs({ binary: 'temporal', namespaces: ['convengine'], dbFile: '/d/t.sqlite' }, 7300, null);
    expect(args.slice(0, 6)).toEqual(['server', 'start-dev', '--ip', '127.0.0.1', '--port', '7300']);
    expect(args).toContain('--headless');
    expect(args.join(' ')).toContain('--namespace convengine');
    expect(args.join(' ')).toContain('--db-filename /d/t.sqlite');
    for (const [name, type] of Object.entries(TURN_SEARCH_ATTRIBUTES)) {
      expect(args.join(' ')).toContain(`--search-attribute ${name}=${type}`);
    }
    expect(args.join(' ')).toContain('--dynamic-config-value history.transferProcessorMaxPollRPS=1000');
    const withUi = startDevArgs({ binary: 'temporal', serverDefaults: true }, 7300, 8300);
    expect(withUi.join(' ')).toContain('--ui-ip 127.0.0.1 --ui-port 8300');
    expect(withUi.join(' ')).not.toContain('--dynamic-config-value');
  });
});

// The build's asset step and the compiled CLI cache (plain JS in bin/, as bin/convengine.js loads them).
/* eslint-disable @typescript-eslint/no-require-imports */
const assets = require('../../../bin/runtime-assets') as { copyRuntimeAssets(root: string, outDir: string): void };
const launcher = require('../../../bin/compiled-cli') as { sourceStamp(): { files: string[] } };
const packageJson = require('../../../package.json') as { scripts: Record<string, string> };
/* eslint-enable @typescript-eslint/no-require-imports */

describe('the shipped dynamic config outside the checkout', () => {
  const REPO = join(__dirname, '..', '..', '..');
  let app: string;
  beforeEach(() => (app = mkdtempSync(join(tmpdir(), 'ce-dist-'))));
  afterEach(() => rmSync(app, { recursive: true, force: true }));

  it('is in a dist/ the build made, where dist/cli/temporal finds it', () => {
    expect(packageJson.scripts['build']).toMatch(/&& node bin\/runtime-assets\.js dist$/);
    const dist = join(app, 'dist');
    assets.copyRuntimeAssets(REPO, dist);
    const path = dynamicConfigPath(join(dist, 'cli', 'temporal'));
    expect(path).toBe(join(dist, DYNAMIC_CONFIG_FILE));
    expect(dynamicConfigFlags(readFileSync(path, 'utf8'))).toEqual(
      dynamicConfigFlags(readFileSync(join(REPO, DYNAMIC_CONFIG_FILE), 'utf8'))
    );
  });

  it('is in the compiled CLI cache, which keeps the layout of the checkout', () => {
    expect(launcher.sourceStamp().files).toContain(join(REPO, DYNAMIC_CONFIG_FILE));
  });

  it('is not searched for above the build: a dist/ without it says so, naming the path and the build', () => {
    const above = join(app, DYNAMIC_CONFIG_FILE);
    mkdirSync(dirname(above), { recursive: true });
    writeFileSync(above, 'not.ours:\n  - value: 1\n');
    const moduleDir = join(app, 'dist', 'cli', 'temporal');
    const missing = join(app, 'dist', DYNAMIC_CONFIG_FILE);
    expect(() => dynamicConfigPath(moduleDir)).toThrow(new DynamicConfigMissingError(missing));
    expect(() => dynamicConfigPath(moduleDir)).toThrow(/npm run build/);
  });
});
