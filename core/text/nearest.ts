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
    const distance = editDistance(target, candidate.toUpperCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions of one UTF-16 unit each. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] as number) + 1, (current[j - 1] as number) + 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}
