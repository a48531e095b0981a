import { compileUserRegex, matchesEntire } from '../text/regex';

const cache = new Map<string, RegExp | null>();

/**
 * Config patterns compiled once per (pattern, case mode). Null when the pattern does not compile:
 * validation refuses such config on load, so at runtime an invalid pattern simply never matches.
 */
export function cachedUserRegex(pattern: string, ignoreCase = true): RegExp | null {
  const key = `${ignoreCase ? 'i' : '-'}:${pattern}`;
  if (!cache.has(key)) {
    let compiled: RegExp | null;
    try {
      compiled = compileUserRegex(pattern, { ignoreCase });
    } catch {
      compiled = null;
    }
    cache.set(key, compiled);
  }
  return cache.get(key) ?? null;
}

/** Java `find()` with a config pattern (case-insensitive unless told otherwise). */
export function findsUserRegex(pattern: string, text: string, ignoreCase = true): boolean {
  const re = cachedUserRegex(pattern, ignoreCase);
  return re !== null && re.test(text);
}

/** Java `matches()`: the whole text must match. */
export function matchesUserRegexEntire(pattern: string, text: string, ignoreCase = true): boolean {
  const re = cachedUserRegex(pattern, ignoreCase);
  return re !== null && matchesEntire(re, text);
}
