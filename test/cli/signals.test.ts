import { launchedByNpm } from '../../cli/signals';

describe('launchedByNpm: whose parent ending is a stop', () => {
  it.each([
    ['npm start', { npm_lifecycle_event: 'start', npm_command: 'start' }],
    ['npm run start', { npm_lifecycle_event: 'start', npm_command: 'run' }],
    ['npx convengine start', { npm_lifecycle_event: 'npx', npm_command: 'exec' }],
    ['npm exec convengine start', { npm_lifecycle_event: 'npx', npm_command: 'exec' }],
  ])('%s: yes', (_launch, env) => {
    expect(launchedByNpm(env)).toBe(true);
  });

  it.each([
    ['npm test, whose tests spawn stacks of their own', { npm_lifecycle_event: 'test', npm_command: 'test' }],
    ['npm run bench', { npm_lifecycle_event: 'bench', npm_command: 'run' }],
    ['a shell or a supervisor', {}],
  ])('%s: no', (_launch, env) => {
    expect(launchedByNpm(env)).toBe(false);
  });
});
