import leven from 'leven';

/**
 * "Did you mean …?" for a name an author typed: the known name fewest edits away, when it is close enough to
 * be the one meant (a third of the name's length, at least two edits), else null. Case is ignored.
 */
export function nearestName(name: string, known: Iterable<string>): string | null {
  const target = name.trim().toUpperCase();
  const limit = Math.max(2, Math.floor(target.length / 3));
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const distance = leven(target, candidate.toUpperCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
