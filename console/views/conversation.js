import { api, apiPath, unexpectedAnswer } from '../lib/api.js';
import { badge, errorBox, h, mount, scrolling, show, when } from '../lib/dom.js';
import { conversationPanels } from '../extensions.js';

/**
 * An earlier run of a turn, listed before it: a failed message a later message superseded (it took the failed turn's
 * number), or a run of the same message that was run again. Its rows are on the turn's page.
 */
function earlierRunRow(t, run) {
  return h(
    'tr',
    { class: `earlier-run${run.superseded ? ' superseded' : ''}`, 'data-run-id': run.runId },
    h(
      'td',
      { class: 'num' },
      h('a', { href: `#/turn/${encodeURIComponent(t.workflowId)}` }, `Turn ${t.turnNumber}`),
      h('div', { class: 'note' }, run.superseded ? 'failed message, superseded' : 'earlier run, run again')
    ),
    h('td', {}, badge(run.status)),
    h('td', {}, run.outcome ? badge(run.outcome) : ''),
    h('td', { class: 'said' }, run.userInput ?? ''),
    h('td', { class: 'said' }, ''),
    h('td', {}, when(run.startedAt))
  );
}

/** A turn's row, after the rows of its earlier runs (none for most turns). */
function turnRow(t) {
  const reply = t.assistantOutput?.value ?? t.assistantOutput;
  return [
    ...(t.earlierRuns ?? []).map((run) => earlierRunRow(t, run)),
    h(
      'tr',
      {},
      h('td', { class: 'num' }, h('a', { href: `#/turn/${encodeURIComponent(t.workflowId)}` }, `Turn ${t.turnNumber}`)),
      h('td', {}, badge(t.status)),
      h('td', {}, t.outcome ? badge(t.outcome) : ''),
      h('td', { class: 'said' }, t.userInput ?? ''),
      h('td', { class: 'said' }, show(reply)),
      h('td', {}, when(t.startedAt))
    ),
  ];
}

/** A page of the conversation's turns (after the cursor `after`, when given), checked to be one. */
async function turnsOf(conversationId, after) {
  const path = apiPath`/api/v1/console/conversations/${conversationId}/turns`;
  const page = await api(after ? `${path}?${new URLSearchParams({ after })}` : path);
  if (!Array.isArray(page?.turns) || typeof page.conversation !== 'object') throw unexpectedAnswer(200, 'a turn list');
  return page;
}

/**
 * The turns after the first page, a page per click: a long conversation's turns are read a page at a time (the API
 * bounds them), appended to `rows`.
 */
function moreTurns(conversationId, rows, next) {
  const holder = h('div', { id: 'more-turns' });
  const offer = (after) => {
    if (!after) return mount(holder);
    const button = h('button', { type: 'button' }, 'More turns');
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const page = await turnsOf(conversationId, after);
        rows.append(...page.turns.flatMap(turnRow));
        offer(page.next);
      } catch (err) {
        mount(holder, errorBox(err), button);
        button.disabled = false;
      }
    });
    return mount(holder, button);
  };
  offer(next);
  return holder;
}

/** One conversation: where it stands and every turn workflow it ran (running and failed ones too). */
export async function conversationPage({ main }, conversationId) {
  const { conversation: c, turns, next } = await turnsOf(conversationId);
  const rows = h('tbody', {}, turns.flatMap(turnRow));
  const panels = h('div', { class: 'panels' });
  mount(
    main,
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: '#/' }, 'Conversations'),
      ' / ',
      h('span', { class: 'mono' }, c.conversationId)
    ),
    h('h1', {}, 'Conversation'),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Status'),
      h('dd', {}, badge(c.status)),
      h('dt', {}, 'Intent / state'),
      h('dd', {}, `${c.intent} / ${c.state}`),
      h('dt', {}, 'Turns'),
      h('dd', {}, c.turnCount),
      h('dt', {}, 'Config version'),
      h('dd', { class: 'mono' }, c.configVersion ?? '')
    ),
    scrolling(
      'Turns',
      h(
        'table',
        { class: 'list', id: 'turns' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Turn', 'Workflow', 'Outcome', 'User said', 'Reply', 'Started'].map((t) => h('th', {}, t))
          )
        ),
        rows
      )
    ),
    moreTurns(c.conversationId, rows, next),
    panels
  );
  for (const panel of conversationPanels) panels.append(await panel(c));
}
