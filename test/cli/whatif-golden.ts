import { join } from 'node:path';
import type { TurnDiff } from '../../core/whatif/diff';

/** The seed demo conversations as what-if golden files (examples/whatif/README.md). */
export const GOLDEN_PATH = join(__dirname, '..', '..', 'examples', 'whatif', 'seed-demo.golden.json');

/** Per conversation and turn: what the user said, the replay's verdict, and the turn's facts. */
export function goldenOf(replays: readonly { name: string; turns: readonly TurnDiff[] }[]) {
  return replays.map(({ name, turns }) => ({
    conversation: name,
    turns: turns.map((t) => ({ turn: t.turnNumber, user: t.userText, status: t.status, ...t.recorded })),
  }));
}
