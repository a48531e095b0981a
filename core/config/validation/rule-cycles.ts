import { MAX_RULE_PASSES } from '../../rules/engine';
import { RULE_PHASES, type RulePhase } from '../../rules/phase';
import { RuleIndex } from '../../rules/select';
import { ANY_SCOPE, normalizeScopeValue } from '../scope';
import { foldCase } from '../../text/ignore-case';
import type { RuleRow } from '../types';
import type { ValidationContext } from './context';
import { regexSample } from './regex-sample';
import { matchesAt, MessageMatcher, MESSAGE_TYPES, type CheckMeter } from './message-filter';

/** Actions that move the session (SET_TASK may, in consumer code) or end evaluation. */
const MOVES = new Set(['SET_STATE', 'SET_INTENT']);
const OPAQUE = new Set(['SET_TASK', 'SHORT_CIRCUIT']);
/** A message most `.*`-like patterns match, tried besides the rules' own EXACT texts and REGEX words. */
const PROBE = 'hello';
/** Rule evaluations the check may spend (a few seconds); past it, it warns that it stopped. */
export const RULE_CYCLE_BUDGET = 3_000_000;
/** How much of the check runs between two of ruleCycleSteps' steps (about a millisecond or two of work each). */
export const PAUSE_EVERY_STARTS = 16;
export const PAUSE_EVERY_EVALUATIONS = 500;

interface Pair {
  intent: string;
  state: string;
}
/** A pass's end: where it left the session and the rules that moved it; null when it cannot be told. */
type PassEnd = { to: Pair; movedBy: number[] } | null;

const movesOrEnds = (rule: RuleRow) => MOVES.has(upper(rule.action)) || OPAQUE.has(upper(rule.action));
const keyOf = (p: Pair) => `${p.intent}\u0000${p.state}`;
const upper = (value: string | null) => normalizeScopeValue(value);

/**
 * A phase runs passes while a pass changes intent or state, MAX_RULE_PASSES at most (core/rules/engine.ts).
 * Rules of one phase that move the session round a loop on one message run every pass and leave it wherever
 * the last pass did, often a state no response admits. Found by running the passes as the engine does for
 * messages the rules themselves name (and one probe): sound, a loop is only reported with a message that runs
 * it. A JSON_PATH rule that reads only the session's intent, state and message (`$[?(@.state == 'A')]`) is run
 * too, with the state each pass leaves; a loop through a rule reading anything else (context, input params), a
 * CONTEXT_JSON_PATH or a consumer-task rule is not reported: what it reads may change with each pass and break the
 * loop, which is legitimate. A warning: the message may never come.
 */
export function checkRuleCycles(ctx: ValidationContext, meter: CheckMeter = { evaluations: 0 }): void {
  for (const step of ruleCycleSteps(ctx, meter)) void step;
}

/**
 * checkRuleCycles in steps: the check takes seconds on a large config (3,000 rules), so it stops at each step for
 * a caller that serves requests meanwhile to let them run (validateConfigPausing). A step ends after every
 * PAUSE_EVERY_STARTS starts indexed, every message walked and every PAUSE_EVERY_EVALUATIONS rule evaluations
 * within one: counted, not timed, so the steps are the same on every run. The same findings, in the same order.
 */
export function* ruleCycleSteps(ctx: ValidationContext, meter: CheckMeter = { evaluations: 0 }): Generator<void> {
  const reported = new Set<string>();
  for (const phase of RULE_PHASES) {
    const rules = ctx.rows.rules.filter((r) => r.enabled && r.phase === phase);
    const movers = rules.filter((r) => MOVES.has(upper(r.action)) && upper(r.actionValue) !== '');
    if (movers.length < 2) continue;
    const starts = startsOf(movers);
    const passes = new Passes(rules, phase, starts, meter);
    yield* passes.indexStarts();
    for (const text of messagesOf(movers)) {
      if (meter.evaluations > RULE_CYCLE_BUDGET) return warnOverBudget(ctx, phase, movers, meter);
      passes.hear(text);
      let pauseAt = meter.evaluations + PAUSE_EVERY_EVALUATIONS;
      for (const start of passes.movedStarts()) {
        const loop = loopFrom(passes, start, starts.length);
        const key = loop && `${phase}:${[...new Set(loop.ruleIds)].sort((a, b) => a - b).join(',')}`;
        if (loop && key && !reported.has(key)) {
          reported.add(key);
          warn(ctx, phase, loop, text);
        }
        if (meter.evaluations < pauseAt) continue;
        pauseAt = meter.evaluations + PAUSE_EVERY_EVALUATIONS;
        yield;
      }
      yield;
    }
  }
}

/** The check only warns, so a config too large to check whole is accepted with a warning that says so. */
function warnOverBudget(ctx: ValidationContext, phase: RulePhase, movers: RuleRow[], meter: CheckMeter): void {
  ctx.sink.warning(
    'ce_rule',
    Math.min(...movers.map((r) => r.ruleId)),
    `the check for rules that move the session round a loop (${phase} and later phases) stopped after ` +
      `${meter.evaluations} rule evaluations (limit ${RULE_CYCLE_BUDGET}): loops it did not reach are not reported`
  );
}

/**
 * Messages worth trying: a greeting, one no EXACT rule names (a loop may need the EXACT rules that would break it
 * not to match), the movers' EXACT texts and REGEX patterns read as text, and a text each REGEX pattern likely
 * matches (`1` for `^\\d+$`, regex-sample.ts).
 */
function messagesOf(movers: RuleRow[]): string[] {
  const named = movers
    .filter((r) => MESSAGE_TYPES.has(upper(r.ruleType)) && upper(r.matchPattern) !== ANY_SCOPE)
    .map((r) => r.matchPattern.trim());
  const exactTexts = new Set(
    movers.filter((r) => upper(r.ruleType) === 'EXACT').map((r) => foldCase(r.matchPattern.trim()))
  );
  const samples = movers.filter((r) => upper(r.ruleType) === 'REGEX').map((r) => regexSample(r.matchPattern.trim()));
  let unnamed = `${PROBE}!`;
  while (exactTexts.has(foldCase(unnamed))) unnamed += '!';
  return [...new Set([PROBE, unnamed, ...named, ...samples])].filter((t): t is string => !!t && t.trim() !== '');
}

/**
 * Where passes can start: each intent and state the movers are written for, move to or compare with (the quoted
 * values of a JSON_PATH condition, `$[?(@.intent == 'FAQ')]`), crossed, and ANY for one no rule names (a loop of
 * ANY rows holds for every intent).
 */
function startsOf(movers: RuleRow[]): Pair[] {
  const intents = new Set<string>([ANY_SCOPE]);
  const states = new Set<string>([ANY_SCOPE]);
  for (const r of movers) {
    const target = (r.actionValue ?? '').trim();
    if (upper(r.intentCode)) intents.add(upper(r.intentCode));
    if (upper(r.stateCode)) states.add(upper(r.stateCode));
    (upper(r.action) === 'SET_STATE' ? states : intents).add(target);
    if (upper(r.ruleType) !== 'JSON_PATH') continue;
    for (const [, , quoted] of r.matchPattern.matchAll(/(['"])(.*?)\1/g)) {
      intents.add(quoted as string);
      states.add(quoted as string);
    }
  }
  return [...intents].flatMap((intent) => [...states].map((state) => ({ intent, state })));
}

/**
 * The passes of one phase for the message heard last. A pass can only move the session through a rule that matches
 * the message, so the message-only rules are run once per message (MessageMatcher), and only the starts where a
 * matching or a JSON_PATH rule is a candidate are walked: the other starts stay put. Each pass's end is remembered
 * per message, and candidates per start: validation time grows with the rules each message matches, not with
 * messages × starts × rules.
 */
class Passes {
  private readonly index: RuleIndex;
  /** Made by indexStarts. */
  private matcher: MessageMatcher | null = null;
  /** Per keyOf(start): the candidates that may move the session or end evaluation, the same for every message. */
  private readonly moving = new Map<string, RuleRow[]>();
  /** Per rule: the indices of the starts where it is such a candidate. */
  private readonly startsOfRule = new Map<RuleRow, number[]>();
  /** The starts where a rule that does not read only the message is a candidate: walked for every message. */
  private readonly everyMessage = new Set<number>();
  private heard: { text: string; matched: Set<RuleRow>; ends: Map<string, PassEnd> } | null = null;

  constructor(
    rules: readonly RuleRow[],
    private readonly phase: RulePhase,
    private readonly starts: readonly Pair[],
    private readonly meter: CheckMeter
  ) {
    // Only rules that move the session (or end evaluation) decide a pass's end, so the index holds just those,
    // and a start's candidates do not scan every ANY rule. Not when two rows share an id: then a rule that does
    // not move may hide a later one with its id from the candidates, as in the engine.
    const distinctIds = new Set(rules.map((rule) => rule.ruleId)).size === rules.length;
    this.index = new RuleIndex(distinctIds ? rules.filter(movesOrEnds) : rules);
  }

  /** Files each start's candidates, a step every PAUSE_EVERY_STARTS starts; to be run before the first message. */
  *indexStarts(): Generator<void> {
    const messageRules = new Set<RuleRow>();
    for (const [at, start] of this.starts.entries()) {
      if (at > 0 && at % PAUSE_EVERY_STARTS === 0) yield;
      for (const rule of this.movingCandidates(start)) {
        if (!MESSAGE_TYPES.has(upper(rule.ruleType))) this.everyMessage.add(at);
        else messageRules.add(rule);
        const list = this.startsOfRule.get(rule);
        if (list) list.push(at);
        else this.startsOfRule.set(rule, [at]);
      }
    }
    this.matcher = new MessageMatcher([...messageRules], this.meter);
  }

  /** Runs the message-only rules on `text`, the message every pass after this one hears. */
  hear(text: string): void {
    if (!this.matcher) throw new Error('Passes.indexStarts must run before the first message');
    this.heard = { text, matched: this.matcher.matching(text), ends: new Map() };
  }

  /** The starts (in order) a pass may move from on the message heard: the others stay put, no loop from there. */
  movedStarts(): Pair[] {
    const at = new Set(this.everyMessage);
    for (const rule of this.heard?.matched ?? []) for (const start of this.startsOfRule.get(rule) ?? []) at.add(start);
    return [...at].sort((a, b) => a - b).map((i) => this.starts[i] as Pair);
  }

  end(from: Pair): PassEnd {
    const heard = this.heard as NonNullable<Passes['heard']>;
    const key = keyOf(from);
    if (heard.ends.has(key)) return heard.ends.get(key) as PassEnd;
    const matches = (rule: RuleRow, at: Pair) =>
      MESSAGE_TYPES.has(upper(rule.ruleType)) ? heard.matched.has(rule) : matchesAt(rule, at, heard.text);
    const candidates = this.movingCandidates(from);
    this.meter.evaluations += candidates.length;
    const end = passEnd(candidates, from, matches);
    heard.ends.set(key, end);
    return end;
  }

  private movingCandidates(from: Pair): RuleRow[] {
    const key = keyOf(from);
    let moving = this.moving.get(key);
    if (!moving) {
      const candidates = this.index.candidates(from.intent, from.state, this.phase);
      moving = candidates.filter(movesOrEnds);
      this.moving.set(key, moving);
    }
    return moving;
  }
}

/**
 * One pass as runRulePhase runs it, for a message: the candidates fixed at the pass's start, each rule matched
 * with the session as the rules before it left it; rules that do not move the session known to stay put.
 */
function passEnd(
  candidates: readonly RuleRow[],
  from: Pair,
  matches: (rule: RuleRow, at: Pair) => boolean | null
): PassEnd {
  const to = { ...from };
  const movedBy: number[] = [];
  for (const rule of candidates) {
    const action = upper(rule.action);
    if (!MOVES.has(action) && !OPAQUE.has(action)) continue;
    const matched = matches(rule, to);
    if (matched === null) return null;
    if (!matched) continue;
    if (OPAQUE.has(action)) return null;
    // The engine sets the value as written (trimmed) and compares exactly; only rule selection ignores case.
    const value = (rule.actionValue ?? '').trim();
    if (action === 'SET_STATE') to.state = value;
    else to.intent = value;
    movedBy.push(rule.ruleId);
  }
  return { to, movedBy };
}

interface Loop {
  pairs: Pair[];
  ruleIds: number[];
}

/** The loop the passes from `start` fall into on `text`, or null when they stop (or cannot be told). */
function loopFrom(passes: Passes, start: Pair, bound: number): Loop | null {
  const seen = new Map<string, number>([[keyOf(start), 0]]);
  const path: { pair: Pair; movedBy: number[] }[] = [{ pair: start, movedBy: [] }];
  // A pass can only reach the starts' intents and states, so the passes stop or revisit within that many.
  for (let pass = 0; pass <= bound; pass++) {
    const current = path.at(-1) as { pair: Pair };
    const end = passes.end(current.pair);
    if (!end || keyOf(end.to) === keyOf(current.pair)) return null;
    path.push({ pair: end.to, movedBy: end.movedBy });
    const again = seen.get(keyOf(end.to));
    if (again !== undefined) {
      const round = path.slice(again);
      return { pairs: round.map((p) => p.pair), ruleIds: round.slice(1).flatMap((p) => p.movedBy) };
    }
    seen.set(keyOf(end.to), path.length - 1);
  }
  return null;
}

function warn(ctx: ValidationContext, phase: RulePhase, loop: Loop, text: string): void {
  const ids = [...new Set(loop.ruleIds)];
  const oneIntent = loop.pairs.every((p) => p.intent === loop.pairs[0]?.intent);
  const intentName = (code: string) => (code === ANY_SCOPE ? 'any intent' : `intent ${code}`);
  const round = oneIntent
    ? `${intentName(loop.pairs[0]?.intent ?? ANY_SCOPE)} round ${loop.pairs.map((p) => p.state).join(' → ')}`
    : `the session round ${loop.pairs.map((p) => `${p.intent}/${p.state}`).join(' → ')}`;
  ctx.sink.warning(
    'ce_rule',
    Math.min(...ids),
    `rules ${ids.join(', ')} (${phase}) move ${round} on the same message (e.g. "${text}"), so such a turn runs ` +
      `all ${MAX_RULE_PASSES} rule passes and stops wherever the last leaves it (RULE_PASS_LIMIT_REACHED); ` +
      `make their match patterns exclude each other or drop one of the moves`
  );
}
