import { launchedByNpm, launcherGone, processFacts, type ProcessFacts } from '../../cli/signals';

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

describe('launcherGone: which process the stop names', () => {
  const table =
    (processes: Record<number, ProcessFacts>) =>
    (pid: number): ProcessFacts | null =>
      processes[pid] ?? null;

  // An outsider's SIGTERM to npm (pid 1072) was reported as "npm (pid 1103) … is gone": 1103 was npm's `sh -c`.
  it('npx: the shell npm ran it through, and npm', () => {
    const ps = table({ 1103: { name: 'sh', parentPid: 1072 }, 1072: { name: 'npm exec conve', parentPid: 1 } });
    expect(launcherGone(1103, ps)).toBe(
      'sh (pid 1103), which npm (pid 1072) ran, launched this process and is gone: stopping'
    );
  });

  it('npm start, which execs node: npm itself', () => {
    const ps = table({ 1072: { name: 'npm start', parentPid: 1 } });
    expect(launcherGone(1072, ps)).toBe('npm (pid 1072), which launched this process, is gone: stopping');
  });

  it('a shell npm did not run, or no /proc to tell: no npm named', () => {
    expect(launcherGone(7, table({ 7: { name: 'bash', parentPid: 1 } }))).toBe(
      'bash (pid 7) launched this process and is gone: stopping'
    );
    expect(launcherGone(7, table({}))).toBe('the process that launched this one (pid 7) is gone: stopping');
  });

  it('reads a live process from /proc, and null for none', () => {
    const own = processFacts(process.pid);
    expect(own?.parentPid).toBe(process.ppid);
    expect(own?.name).toEqual(expect.any(String));
    expect(processFacts(-1)).toBeNull();
  });
});
