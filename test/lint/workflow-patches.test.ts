/**
 * Every patch a turn workflow asks of its history is one of TURN_PATCHES (workflows/turn-versions.ts): a worker's
 * identity says how many of that list it knows (`patches=<n>`, observability/turn-patches.ts), so a patch asked
 * elsewhere, or written as a string, would be one the API cannot tell a worker lacks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as versions from '../../workflows/turn-versions';
import { TURN_PATCHES } from '../../workflows/turn-versions';

const WORKFLOWS = join(__dirname, '..', '..', 'workflows');

/** The argument of each `patched(…)` or `deprecatePatch(…)` call in the workflow sources, with its file. */
function patchCalls(): { file: string; argument: string }[] {
  const calls: { file: string; argument: string }[] = [];
  const files = readdirSync(WORKFLOWS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const code = readFileSync(join(WORKFLOWS, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const match of code.matchAll(/\b(?:patched|deprecatePatch)\(\s*([^)]*?)\s*\)/g)) {
      calls.push({ file, argument: match[1] ?? '' });
    }
  }
  return calls;
}

test('every patched() in workflows/ names an exported constant of TURN_PATCHES', () => {
  const calls = patchCalls();
  expect(calls.length).toBeGreaterThanOrEqual(TURN_PATCHES.length);
  const named = versions as unknown as Record<string, unknown>;
  const strays = calls.filter(({ argument }) => {
    const value = /^[A-Z][A-Z0-9_]*_PATCH$/.test(argument) ? named[argument] : undefined;
    return typeof value !== 'string' || !TURN_PATCHES.includes(value);
  });
  expect(strays).toEqual([]);
});

test('every patch of TURN_PATCHES is asked somewhere, once declared', () => {
  const asked = new Set(patchCalls().map(({ argument }) => (versions as unknown as Record<string, unknown>)[argument]));
  expect(TURN_PATCHES.filter((id) => !asked.has(id))).toEqual([]);
  expect(new Set(TURN_PATCHES).size).toBe(TURN_PATCHES.length);
});
