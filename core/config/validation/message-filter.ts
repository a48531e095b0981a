import { evaluateJsonPathRule } from '../../rules/jsonpath';
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

/** The rule types whose match reads only the message: the same on every pass of a turn. */
export const MESSAGE_TYPES = new Set(['REGEX', 'EXACT']);
/**
 * The facts a JSON_PATH rule may read and still be told at validation: the session's intent and state (which the
 * passes themselves set) and the message. A path reading anything else (context, inputParams) is not told.
 */
const PASS_FACTS = new Set(['intent', 'state', 'userText']);

/**
 * Whether `rule` matches mid-pass, with the session at `at`, on `text`; null when that cannot be told: a JSON_PATH
 * rule that reads facts besides PASS_FACTS (or enumerates them), a CONTEXT_JSON_PATH rule, an unknown type.
 */
export function matchesAt(rule: RuleRow, at: { intent: string; state: string }, text: string): boolean | null {
  const type = normalizeScopeValue(rule.ruleType);
  if (MESSAGE_TYPES.has(type)) return evaluateRuleMatch(rule, { userText: text, facts: {}, context: {} }).matched;
  if (type !== 'JSON_PATH' || rule.matchPattern.trim() === '') return null;
  const read = new Set<string>();
  let enumerated = false;
  const record = (key: string | symbol) => typeof key === 'string' && read.add(key);
  const facts = new Proxy<Record<string, string>>(
    { intent: at.intent, state: at.state, userText: text },
    {
      get: (target, key) => (record(key), Reflect.get(target, key)),
      has: (target, key) => (record(key), Reflect.has(target, key)),
      getOwnPropertyDescriptor: (target, key) => (record(key), Reflect.getOwnPropertyDescriptor(target, key)),
      ownKeys: (target) => ((enumerated = true), Reflect.ownKeys(target)),
    }
  );
  const matched = evaluateJsonPathRule(rule.matchPattern, facts);
  return enumerated || [...read].some((key) => !PASS_FACTS.has(key)) ? null : matched;
}

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
 * quoting (\Q): groups, classes, escapes of letters and digits (with their arguments, escapeEnd), `.`, anchors and
 * quantified characters end a run. Comments mode is (?x) or (?X): the engine takes its flags in either case.
 */
export function regexPieces(pattern: string): string[] | null {
  if (/\(\?[a-zA-Z-]*x/i.test(pattern) || pattern.includes('\\Q')) return null;
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
      else {
        end();
        if (/[a-zA-Z0-9]/.test(next)) at = escapeEnd(pattern, at);
      }
    } else if (ch === '(' || ch === '[') {
      end();
      const close = ch === '(' ? skipGroup(pattern, at) : skipClass(pattern, at);
      if (close < 0) return null;
      at = close;
    } else if (ch === '{') {
      // Only a repeat count is skipped: any other `{` is a literal (`a{|b}` is `a{` or `b}`), read on after it.
      end();
      at += (REPEAT_COUNT.exec(pattern.slice(at))?.[0].length ?? 1) - 1;
    } else if (/[\x20-\x7e]/.test(ch) && !'.^$*+?)]}'.includes(ch) && !quantified(pattern, at + 1)) run += ch;
    else end();
  }
  end();
  return runs;
}

const REPEAT_COUNT = /^\{\d+(?:,\d*)?\}/;
/** How many characters of argument follow an escape's letter when not braced: \x41, \u0041, \cA, \pL. */
const ESCAPE_ARGUMENT: Readonly<Record<string, number>> = { x: 2, u: 4, c: 1, p: 1, P: 1 };
/** The escapes whose argument may be braced (\x{41}, \p{L}, \N{…}) or angled (\k<nm>): after others it is text. */
const BRACED_ARGUMENT = /^(?:[xupPN]\{[^}]*\}|k<[^>]*>)/;

/**
 * The last index of the escape whose letter or digit is at `at`: its argument stands for other text (\x41BC and
 * \101 match "ABC" and "A", \k<nm> a group's), so it is no literal run. A braced or angled argument (\x{41},
 * \p{L}, \k<nm>, \N{…}) runs to its close, a digit's to the last digit (octal \0101 and \12, a backreference
 * \12). Taking too much only ends a run early (the run after it is still required), unless it hides a `|`, `(` or
 * `[`: hence a brace only where the escape takes one (`\b{2}` is \b repeated, `\b<a|b>` an alternation).
 */
function escapeEnd(pattern: string, at: number): number {
  const braced = BRACED_ARGUMENT.exec(pattern.slice(at));
  if (braced) return at + braced[0].length - 1;
  const digits = /\d/.test(pattern[at] as string);
  const length = digits ? Infinity : (ESCAPE_ARGUMENT[pattern[at] as string] ?? 0);
  let last = at;
  while (last - at < length && (digits ? /\d/ : /[a-zA-Z0-9]/).test(pattern[last + 1] ?? '')) last++;
  return last;
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
