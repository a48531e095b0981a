import { compileUserRegex, matchesEntire, matchesFind, type UserRegex } from '../text/regex';

/** Each compiled pattern keeps its own DFA cache: bound how many are kept, as the other config caches do. */
const CACHED_PATTERNS = 1000;

/** In order of last use, least recent first (a Map keeps insertion order: a hit is moved to the end). */
const cache = new Map<string, UserRegex | null>();

/**
 * Config patterns compiled once per (pattern, case mode). Null when the pattern does not compile:
 * validation refuses such config on load, so at runtime an invalid pattern simply never matches. Past
 * CACHED_PATTERNS the least recently used goes: emptying the whole cache instead made a config with more patterns
 * than that compile its busiest ones again every time the cache filled.
 */
export function cachedUserRegex(pattern: string, ignoreCase = true): UserRegex | null {
  const key = `${ignoreCase ? 'i' : '-'}:${pattern}`;
  let compiled = cache.get(key);
  if (compiled !== undefined) {
    cache.delete(key);
  } else {
    try {
      compiled = compileUserRegex(pattern, { ignoreCase });
    } catch {
      compiled = null;
    }
    const eldest = cache.size >= CACHED_PATTERNS ? cache.keys().next() : undefined;
    if (eldest && !eldest.done) cache.delete(eldest.value);
  }
  cache.set(key, compiled);
  return compiled;
}

/** Java `find()` with a config pattern (case-insensitive unless told otherwise); over-long text does not match. */
export function findsUserRegex(pattern: string, text: string, ignoreCase = true): boolean {
  const re = cachedUserRegex(pattern, ignoreCase);
  return re !== null && matchesFind(re, text);
}

/** Java `matches()`: the whole text must match; over-long text does not. */
export function matchesUserRegexEntire(pattern: string, text: string, ignoreCase = true): boolean {
  const re = cachedUserRegex(pattern, ignoreCase);
  return re !== null && matchesEntire(re, text);
}
