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
 * The turns after the first page, a page per press: a long conversation's turns are read a page at a time (the API
 * bounds them), appended to `rows`. One button for the page's life, never disabled while it reads (a disabled or
 * replaced button drops the focus to the page's body): a press while a page loads does nothing. What came is said
 * in a status region; after the last page the button goes, and the focus moves to the first turn added.
 */
function moreTurns(conversationId, rows, next) {
  let after = next;
  let loading = false;
  const said = h('p', { role: 'status', class: 'muted', id: 'more-turns-status' });
  const failure = h('div');
  const button = h('button', { type: 'button', hidden: !after }, 'More turns');
  button.addEventListener('click', async () => {
    if (loading || !after) return;
    loading = true;
    button.setAttribute('aria-disabled', 'true');
    try {
      const page = await turnsOf(conversationId, after);
      const added = page.turns.flatMap(turnRow);
      rows.append(...added);
      mount(failure);
      after = page.next;
      const count = `${page.turns.length} more turn${page.turns.length === 1 ? '' : 's'} loaded`;
      mount(said, after ? `${count}.` : `${count}; that is every turn.`);
      if (!after) lastPage(button, added[0]?.querySelector('a') ?? rows.closest('[tabindex]'));
    } catch (err) {
      mount(failure, errorBox(err));
    } finally {
      loading = false;
      button.removeAttribute('aria-disabled');
    }
  });
  return h('div', { id: 'more-turns' }, failure, button, said);
}

/** No more turns to load: the button goes, the focus (on it) to `target`, the first turn added. */
function lastPage(button, target) {
  const hadFocus = document.activeElement === button;
  button.hidden = true;
  if (hadFocus) target?.focus();
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
