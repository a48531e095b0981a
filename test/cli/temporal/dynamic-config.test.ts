import { readFileSync } from 'node:fs';
import { dynamicConfigFlags, dynamicConfigPath } from '../../../cli/temporal/dynamic-config';
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
