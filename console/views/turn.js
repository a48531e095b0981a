import { api, ApiError, apiPath, followAudits, unexpectedAnswer } from '../lib/api.js';
import { badge, duration, h, keepFields, mount, show, when } from '../lib/dom.js';
import { TURN_ID } from '../lib/ids.js';
import { timeline } from './timeline.js';
import { actionOutcome, actionPanels, openQuestions } from './turn-actions.js';

/** Driver decisions (the memo's decisionLog) in words; the raw entry stays visible. */
function explain(decision) {
  const [kind, rest = ''] = decision.split(/:\s*/, 2);
  const fields = Object.fromEntries(
    rest
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => kv.split('='))
  );
  const tool = fields.tool ?? '?';
  const reason = fields.reason ?? '';
  switch (kind) {
    case 'LOOP_LIMIT':
      return `Loop limit: the planner was stopped after ${fields.limit ?? '?'} iterations without an answer (${reason}).`;
    case 'GUARDRAIL_BLOCKED':
      return `Guardrail blocked the tool ${tool} (${reason}); it never ran.`;
    case 'APPROVAL':
      return `Approval of ${tool}: ${reason}.`;
    case 'TOOL_HOLD_RESOLVED':
      return `Held call to ${tool} resolved by an operator: ${reason}.`;
    case 'TOOL_FAILED':
      return `Tool ${tool} failed (${reason}).`;
    case 'DUPLICATE_SUPPRESSED':
      return `A repeated call to ${tool} was not run again (${reason}).`;
    case 'REPEAT_REFUSED':
      return `The planner asked again for ${tool}, whose direct call failed this turn; it was not sent (${reason}).`;
    case 'MCP_SKIPPED':
      return `The planner did not run (${reason}).`;
    default:
      // A kind this console does not know yet: the raw line below says it all.
      return null;
  }
}

function decisions(story) {
  if (story.decisions.length === 0) return null;
  return h(
    'section',
    { class: 'panel', id: 'decisions' },
    h('h2', {}, 'Decisions'),
    h(
      'ul',
      {},
      story.decisions.map((d) => {
        const said = explain(d);
        return h('li', {}, said ? h('strong', {}, said) : null, h('div', { class: 'mono muted' }, d));
      })
    )
  );
}

function header(turn) {
  const s = turn.story;
  const sa = s.searchAttributes;
  return [
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: '#/' }, 'Conversations'),
      ' / ',
      h('a', { href: `#/conversation/${encodeURIComponent(turn.conversationId)}`, class: 'mono' }, turn.conversationId),
      ` / turn ${turn.turnNumber}`
    ),
    h(
      'h1',
      { tabindex: '-1' },
      `Turn ${turn.turnNumber} `,
      badge(s.status),
      ' ',
      sa.TurnOutcome ? badge(sa.TurnOutcome) : null
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Workflow'),
      h('dd', { class: 'mono' }, turn.workflowId),
      h('dt', {}, 'Intent / state'),
      h('dd', {}, sa.Intent ? `${show(sa.Intent)} / ${show(sa.State)}` : '— (set when the turn finishes)'),
      h('dt', {}, 'Config version'),
      h('dd', { class: 'mono', id: 'config-version' }, s.configVersion ?? '—'),
      h('dt', {}, 'Started'),
      h('dd', {}, `${when(s.startedAt)}${s.durationMs !== null ? `, took ${duration(s.durationMs)}` : ''}`),
      h('dt', {}, 'History'),
      h('dd', {}, `${s.eventCount} events`),
      turn.temporalUiUrl
        ? [
            h('dt', {}, 'Temporal UI'),
            h(
              'dd',
              {},
              h(
                'a',
                { href: turn.temporalUiUrl, target: '_blank', rel: 'noopener', id: 'temporal-ui-link' },
                'open this workflow'
              )
            ),
          ]
        : null
    ),
  ];
}

function exchange(turn) {
  const response = turn.response?.value ?? turn.response;
  return h(
    'section',
    { class: 'panel exchange' },
    h('div', {}, h('h2', {}, 'User said'), h('p', { class: 'said' }, turn.userInput ?? '—')),
    h(
      'div',
      { id: 'response' },
      h('h2', {}, 'Response'),
      h('pre', { class: 'said' }, response === null || response === undefined ? '—' : show(response))
    )
  );
}

/**
 * Why the page is not up to date: the API's refusal as it said it (code and message); anything else (a script error
 * while drawing an answer, a network that failed the request) in plain words, its text left to the browser's console.
 */
function whyStale(err) {
  if (err instanceof ApiError) return `the last refresh failed (${err.code}: ${err.message}).`;
  console.error(err);
  return 'the live view could not be refreshed. Reload the page if this does not clear.';
}

/**
 * Whether the page is up to date: live while the turn runs and its reads succeed; a read that failed says why
 * (whyStale) and since when the page shows older data, until a read succeeds again. Its element is redrawn only when
 * what it says changes: the 3 s poll re-inserting the same status would have a screen reader announce it (and the
 * alert interrupt) every 3 s.
 */
function liveMarker() {
  const element = h('div', { id: 'live-marker', role: 'status' });
  let said = '';
  const say = (content) => {
    const text = content ? `${content.id}:${content.textContent}` : '';
    if (text === said) return;
    said = text;
    mount(element, content);
  };
  const running = () =>
    say(h('p', { class: 'live', id: 'live' }, '● live: this turn is running; the page follows its audit trail'));
  const stale = (err, since) =>
    say(
      h(
        'div',
        { class: 'error stale', role: 'alert', id: 'refresh-failed' },
        `Not up to date: ${whyStale(err)} `,
        `This page shows the turn as read ${when(since)}; retrying every 3 s.`
      )
    );
  return { element, running, stale, clear: () => say(null) };
}

/**
 * The timeline, its step rows keyed by step and iteration (`McpPlan #2`, then which of those it is): a live redraw
 * keeps the audit rows an operator opened open, and the focus on their summary (keepFields), also as rows come in.
 */
function keyedTimeline(turn) {
  const parts = timeline(turn.story, turn.audits, turn.runId, turn.earlierRuns);
  const seen = new Map();
  for (const row of parts.flatMap((part) => (part ? [...part.querySelectorAll('tr.step')] : []))) {
    const step = `${row.dataset.type}${row.querySelector('.iter')?.textContent ?? ''}`;
    seen.set(step, (seen.get(step) ?? 0) + 1);
    row.dataset.key = `${step}/${seen.get(step)}`;
  }
  return parts;
}

/** JSON text with every object's keys sorted: two reads of the same turn are the same text in any key order. */
function canonical(value) {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]])
        )
      : v
  );
}

/**
 * Follows a running turn: every audit row it writes re-reads its story (`refresh` coalesces them), and a 3 s poll
 * covers silent waits; `start` again while following does nothing.
 */
function follower(refresh) {
  let following = null;
  return {
    start(conversationId) {
      if (following) return;
      following = new AbortController();
      const { signal } = following;
      void followAudits(conversationId, ({ event }) => event !== 'CONNECTED' && refresh(), signal).catch(
        () => undefined
      );
      const poll = setInterval(refresh, 3000);
      signal.addEventListener('abort', () => clearInterval(poll));
    },
    stop() {
      following?.abort();
      following = null;
    },
  };
}

/** A turn's full story from its event history, its audit rows and its live state. */
export async function turnPage({ main, onLeave }, workflowId) {
  const left = new AbortController();
  let pending = null;
  let shown = '';
  let readAt = null;
  let busy = false;
  // The last action's outcome and whether the page is current: one element each for the page's life, so a redraw
  // does not wipe them.
  const outcome = actionOutcome(() => main.querySelector('h1')?.focus());
  const marker = liveMarker();
  const questions = openQuestions();
  // While an action's request is in flight its buttons (every action panel's) are disabled: a second click would
  // send a second request, and its answer would hide the first one's.
  const disableActions = () => {
    for (const button of main.querySelectorAll('.panel.attention button')) button.disabled = busy;
  };
  const page = { done: () => reload(), report: outcome.report, focus: outcome.focus, busy: setBusy, questions };
  const draw = (turn) => {
    const restore = keepFields(main);
    const inQuestion = Boolean(document.activeElement?.closest('.ask-first [role=group]'));
    questions.redrawing();
    mount(
      main,
      header(turn),
      marker.element,
      outcome.element,
      actionPanels(turn, page),
      exchange(turn),
      decisions(turn.story),
      h('h2', {}, 'Timeline'),
      keyedTimeline(turn)
    );
    restore();
    disableActions();
    closeQuestions(inQuestion, turn);
  };
  // A question the redraw did not ask again is about a decision no longer waiting: the operator is told, and the focus
  // that was in it (`inQuestion`) goes to the telling. While the turn's worker is unreachable its panel is missing
  // only because the turn cannot be read: the question stays open (openQuestions), and the operator is told that.
  const closeQuestions = (inQuestion, turn) => {
    const { closed, waiting } = questions.closed(Boolean(turn.waitingUnavailable));
    if (closed.length === 0 && waiting.length === 0) return;
    outcome.report(
      closed.map(({ question, about }) =>
        h(
          'p',
          { role: 'status' },
          `Closed “${question}”, nothing sent: ${about} (the turn moved on, or it was decided elsewhere).`
        )
      ),
      waiting.map(({ question }) =>
        h(
          'p',
          { role: 'status' },
          `“${question}” stays open, nothing sent: the turn's worker is unreachable, so what the turn waits on `,
          'cannot be read. It is asked again once a worker answers.'
        )
      )
    );
    if (inQuestion && !main.contains(document.activeElement)) outcome.focus();
  };
  const load = async () => {
    const turn = await api(apiPath`/api/v1/console/turns/${workflowId}`);
    if (!isTurnView(turn)) throw unexpectedAnswer(200, 'a turn');
    if (left.signal.aborted) return turn;
    // Re-render only on change; what was typed and the focus survive a redraw all the same. The page shows this read
    // only once it is drawn: a redraw that throws leaves the time of the read on screen.
    const seen = canonical(turn);
    if (seen !== shown) draw(turn);
    shown = seen;
    readAt = new Date().toISOString();
    return turn;
  };
  const refresh = () => {
    pending ??= setTimeout(() => {
      pending = null;
      void reload();
    }, 200);
  };
  const follow = follower(refresh);
  function setBusy(on) {
    busy = on;
    disableActions();
  }
  // Every re-read (an audit row, the poll, after an action): a running turn is followed, also once it runs again
  // (retried); a failed read is shown, and polled until one succeeds.
  async function reload() {
    try {
      showStanding(await load());
    } catch (err) {
      if (left.signal.aborted) return;
      marker.stale(err, readAt);
      follow.start(conversationIdOf(workflowId));
    }
  }
  function showStanding(turn) {
    if (left.signal.aborted) return;
    if (turn.story.status !== 'RUNNING') {
      marker.clear();
      follow.stop();
      return;
    }
    marker.running();
    follow.start(turn.conversationId);
  }
  onLeave(() => {
    left.abort();
    follow.stop();
    clearTimeout(pending);
  });
  showStanding(await load());
}

/** `turn-<conversation id>-<n>` names its conversation (the route checked the id's form: lib/ids.js). */
function conversationIdOf(workflowId) {
  return TURN_ID.exec(workflowId)?.[1] ?? '';
}

/** What the page reads of a turn's answer is there: else the page says the answer is unexpected, and draws nothing. */
function isTurnView(turn) {
  const story = turn?.story;
  return (
    typeof turn?.workflowId === 'string' &&
    typeof turn.conversationId === 'string' &&
    typeof story?.searchAttributes === 'object' &&
    story.searchAttributes !== null &&
    Array.isArray(story.decisions)
  );
}
