import { api, followAudits } from '../lib/api.js';
import { badge, duration, h, keepFields, mount, show, when } from '../lib/dom.js';
import { timeline } from './timeline.js';
import { actionOutcome, actionPanels } from './turn-actions.js';

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
      h('a', { href: `#/conversation/${turn.conversationId}`, class: 'mono' }, turn.conversationId),
      ` / turn ${turn.turnNumber}`
    ),
    h('h1', {}, `Turn ${turn.turnNumber} `, badge(s.status), ' ', sa.TurnOutcome ? badge(sa.TurnOutcome) : null),
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

function live(running) {
  return running
    ? h('p', { class: 'live', id: 'live' }, '● live: this turn is running; the page follows its audit trail')
    : null;
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

/** A turn's full story from its event history, its audit rows and its live state. */
export async function turnPage({ main, onLeave }, workflowId) {
  const stop = new AbortController();
  onLeave(() => stop.abort());
  let pending = null;
  let shown = '';
  // The last action's outcome: one element for the page's life, so a redraw does not wipe it.
  const outcome = actionOutcome();
  const load = async () => {
    const turn = await api(`/api/v1/console/turns/${workflowId}`);
    // Re-render only on change; what was typed and the focus survive a redraw all the same.
    const seen = canonical(turn);
    if (stop.signal.aborted || seen === shown) return turn;
    shown = seen;
    const restore = keepFields(main);
    mount(
      main,
      header(turn),
      live(turn.story.status === 'RUNNING'),
      outcome.element,
      actionPanels(turn, { done: load, report: outcome.report }),
      exchange(turn),
      decisions(turn.story),
      h('h2', {}, 'Timeline'),
      timeline(turn.story, turn.audits)
    );
    restore();
    return turn;
  };
  const turn = await load();
  if (turn.story.status !== 'RUNNING') return;
  // Every audit row the turn writes re-reads its story (coalesced); a poll covers silent waits.
  const refresh = () => {
    pending ??= setTimeout(() => {
      pending = null;
      void load().then((t) => t.story.status !== 'RUNNING' && stop.abort());
    }, 200);
  };
  void followAudits(turn.conversationId, ({ event }) => event !== 'CONNECTED' && refresh(), stop.signal).catch(
    () => undefined
  );
  const poll = setInterval(refresh, 3000);
  stop.signal.addEventListener('abort', () => clearInterval(poll));
}
