import { evaluateRuleMatch } from '../../rules/match';
import { normalizeScopeValue } from '../scope';
import type { RuleRow } from '../types';

/** Rule evaluations (matches run, candidates looked at) the rule-loop check has spent. */
export interface CheckMeter {
  evaluations: number;
}

/** Texts with anything but printable ASCII are matched against every rule (Unicode case folding, e.g. K → k). */
const PLAIN_TEXT = /^[\x20-\x7e]*$/;
const GRAM = 3;

/**
 * Which REGEX/EXACT rules match a message, without running every rule on every message: each rule is filed under a
 * piece of text every message it matches contains (a literal run of its pattern, or its EXACT text), and a message
 * runs only the rules filed under pieces of itself. Sound by construction: a piece is only taken where the pattern
 * requires it, compared case-folded on ASCII, and a rule with no such piece (`.*`, `a|b`, non-ASCII) is always run.
 */
export class MessageMatcher {
  private readonly always: RuleRow[] = [];
  private readonly filed = new Map<string, RuleRow[]>();

  constructor(
    private readonly rules: readonly RuleRow[],
    private readonly meter: CheckMeter
  ) {
    const pieces = rules.map(requiredPieces);
    const counts = new Map<string, number>();
    for (const gram of pieces.flatMap((p) => p ?? []).flatMap(gramsOf)) counts.set(gram, (counts.get(gram) ?? 0) + 1);
    rules.forEach((rule, i) => {
      const grams = (pieces[i] ?? []).flatMap(gramsOf);
      if (grams.length === 0) return void this.always.push(rule);
      // The rarest piece, so a message pulls few rules besides those that match it.
      const rarest = grams.reduce((a, b) => ((counts.get(b) ?? 0) < (counts.get(a) ?? 0) ? b : a));
      const list = this.filed.get(rarest);
      if (list) list.push(rule);
      else this.filed.set(rarest, [rule]);
    });
  }

  /** The rules (of those given) that match `text`, each run once. */
  matching(text: string): Set<RuleRow> {
    const tried = PLAIN_TEXT.test(text) ? this.triedFor(text.toLowerCase()) : new Set(this.rules);
    const out = new Set<RuleRow>();
    for (const rule of tried) {
      this.meter.evaluations++;
      if (evaluateRuleMatch(rule, { userText: text, facts: {}, context: {} }).matched) out.add(rule);
    }
    return out;
  }

  private triedFor(lower: string): Set<RuleRow> {
    const tried = new Set<RuleRow>(this.always);
    for (let length = 1; length <= GRAM; length++)
      for (let at = 0; at + length <= lower.length; at++)
        for (const rule of this.filed.get(lower.slice(at, at + length)) ?? []) tried.add(rule);
    return tried;
  }
}

/** A piece's substrings of GRAM characters (the piece itself when shorter), lower-cased. */
function gramsOf(piece: string): string[] {
  const lower = piece.toLowerCase();
  if (lower.length <= GRAM) return [lower];
  return Array.from({ length: lower.length - GRAM + 1 }, (_, at) => lower.slice(at, at + GRAM));
}

/** Pieces of text every message the rule matches contains; null when none can be told. */
function requiredPieces(rule: RuleRow): string[] | null {
  const type = normalizeScopeValue(rule.ruleType);
  const pattern = rule.matchPattern;
  if (type === 'EXACT') {
    const text = pattern.trim();
    return text === '' || text.toUpperCase() === 'ANY' || !PLAIN_TEXT.test(text) ? null : [text];
  }
  return type === 'REGEX' ? regexPieces(pattern) : null;
}

/**
 * The literal runs at the top level of a Java pattern, none when it has a top-level alternation, comments mode or
 * quoting (\Q): groups, classes, escapes of letters and digits, `.`, anchors and quantified characters end a run.
 */
export function regexPieces(pattern: string): string[] | null {
  if (/\(\?[a-zA-Z-]*x/.test(pattern) || pattern.includes('\\Q')) return null;
  const runs: string[] = [];
  let run = '';
  const end = () => {
    if (run !== '') runs.push(run);
    run = '';
  };
  for (let at = 0; at < pattern.length; at++) {
    const ch = pattern[at] as string;
    if (ch === '|') return null;
    if (ch === '\\') {
      const next = pattern[at + 1];
      if (next === undefined) return null;
      at++;
      // A quantified character may be absent: the run before it and the one after are not contiguous.
      if (/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(next) && !quantified(pattern, at + 1)) run += next;
      else end();
    } else if (ch === '(' || ch === '[') {
      end();
      const close = ch === '(' ? skipGroup(pattern, at) : skipClass(pattern, at);
      if (close < 0) return null;
      at = close;
    } else if (ch === '{') {
      end();
      const close = pattern.indexOf('}', at);
      if (close < 0) break;
      at = close;
    } else if (/[\x20-\x7e]/.test(ch) && !'.^$*+?)]}'.includes(ch) && !quantified(pattern, at + 1)) run += ch;
    else end();
  }
  end();
  return runs;
}

/** Whether a quantifier follows at `at` (the character before it may then be absent or repeated). */
const quantified = (pattern: string, at: number) => '*+?{'.includes(pattern[at] ?? '.');

/** The index of the `)` closing the group opened at `open`, or -1. */
function skipGroup(pattern: string, open: number): number {
  let depth = 0;
  for (let at = open; at < pattern.length; at++) {
    const ch = pattern[at];
    if (ch === '\\') at++;
    else if (ch === '[') {
      at = skipClass(pattern, at);
      if (at < 0) return -1;
    } else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return at;
  }
  return -1;
}

/** The index of the `]` closing the class opened at `open` (Java classes nest), or -1 when in doubt. */
function skipClass(pattern: string, open: number): number {
  let at = open + 1;
  if (pattern[at] === '^') at++;
  if (pattern[at] === ']') return -1;
  let depth = 1;
  for (; at < pattern.length; at++) {
    const ch = pattern[at];
    if (ch === '\\') at++;
    else if (ch === '[') depth++;
    else if (ch === ']' && --depth === 0) return at;
  }
  return -1;
}
