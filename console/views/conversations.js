import { api } from '../lib/api.js';
import { badge, errorBox, fieldError, h, mount, refusedField, scrolling, when } from '../lib/dom.js';

const PAGE = 25;

/**
 * The statuses the list shows (api/console/ports.ts CONSOLE_CONVERSATION_STATUSES): AWAITING_APPROVAL while a turn is
 * parked on a tool approval, HELD while it holds a tool call for an operator; '' is any.
 */
const STATUSES = ['RUNNING', 'BLOCKED', 'AWAITING_APPROVAL', 'HELD'];

function statusField(params) {
  const current = params.get('status') ?? '';
  const option = (value, text) => h('option', { value, selected: value === current }, text);
  return h(
    'label',
    {},
    'Status',
    h(
      'select',
      { name: 'status' },
      option('', 'any'),
      STATUSES.map((s) => option(s, s))
    )
  );
}

/** The filters' names for an operator, and what each accepts (the API refuses what it does not: refusedField). */
const FILTERS = {
  q: { label: 'Search', accepts: 'a conversation id, or text from it, at most 200 characters' },
  intent: { label: 'Last intent', accepts: 'a code as the config names it, as in ORDER_DIAGNOSTICS' },
  state: { label: 'Last state', accepts: 'a code as the config names it, as in COMPLETED' },
  status: { label: 'Status', accepts: 'one of the listed statuses' },
};

function filterForm(params) {
  const field = (name, label, placeholder) =>
    h('label', {}, label, h('input', { name, value: params.get(name) ?? '', placeholder }));
  return h(
    'form',
    {
      class: 'filters',
      onsubmit: (event) => {
        event.preventDefault();
        const next = new URLSearchParams();
        for (const [name, value] of new FormData(event.target)) if (String(value).trim()) next.set(name, value);
        location.hash = `#/?${next}`;
      },
    },
    field('q', FILTERS.q.label, 'conversation id or text'),
    statusField(params),
    field('intent', FILTERS.intent.label, 'ORDER_DIAGNOSTICS'),
    field('state', FILTERS.state.label, 'COMPLETED'),
    h('button', { type: 'submit' }, 'Search')
  );
}

function row(c) {
  return h(
    'tr',
    {},
    h(
      'td',
      {},
      h('a', { href: `#/conversation/${encodeURIComponent(c.conversationId)}`, class: 'mono' }, c.conversationId)
    ),
    h('td', {}, badge(c.status)),
    h('td', {}, c.intent),
    h('td', {}, c.state),
    h('td', { class: 'num' }, c.turnCount),
    h('td', { class: 'said' }, h('div', { class: 'clamped' }, c.lastUserText ?? '')),
    h('td', {}, when(c.updatedAt))
  );
}

/** Pages follow the API's cursor (`next`), so a turn arriving meanwhile neither repeats a row nor skips one. */
function pager(params, page) {
  const link = (after, text) => {
    const next = new URLSearchParams(params);
    if (after) next.set('after', after);
    else next.delete('after');
    return h('a', { href: `#/?${next}` }, text);
  };
  return h(
    'p',
    { class: 'pager' },
    params.get('after') ? link(null, '← newest') : null,
    ` ${page.items.length} shown of ${page.total}${page.totalCapped ? '+' : ''} `,
    page.next ? link(page.next, 'older →') : null
  );
}

/** A list of the admin API (`{turns, next?}`); an API without the route has none (404). */
async function adminTurns(path) {
  try {
    return await api(path);
  } catch (err) {
    return err.status === 404 ? { turns: [] } : err;
  }
}

/** #22: turns whose tool call waits for an operator. */
const heldTurns = () => adminTurns('/api/v1/admin/turns/held');

/** D16: turns waiting for a tool approval, the first page (newest first); the API's own page size. */
const approvalTurns = () => adminTurns('/api/v1/admin/turns/awaiting-approval');

const turnLink = (workflowId) =>
  h('td', {}, h('a', { href: `#/turn/${encodeURIComponent(workflowId)}`, class: 'mono' }, workflowId));

/** A panel of turns waiting on a person, each row linking to the turn's page, where it is decided. */
function waitingPanel(list, { id, title, head, cells }) {
  if (list instanceof Error) return errorBox(list);
  const { turns, next } = list;
  if (turns.length === 0) return null;
  // A paged list shows its first page: the newest, and says that more wait.
  const count = next ? `the newest ${turns.length}; more wait` : turns.length;
  return h(
    'section',
    { class: 'panel attention', id },
    h('h2', {}, `${title} (${count})`),
    scrolling(
      title,
      h(
        'table',
        { class: 'list' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            head.map((t) => h('th', {}, t))
          )
        ),
        h(
          'tbody',
          {},
          turns.map((turn) => h('tr', {}, turnLink(turn.workflowId), cells(turn)))
        )
      )
    )
  );
}

/** Without a worker the call a turn waits on cannot be read: the row says why, across the call's cells. */
const unavailableCell = (turn, span) =>
  h('td', { class: 'failure', colspan: span }, `unavailable: ${turn.unavailable}`);

function heldPanel(turns) {
  return waitingPanel(turns, {
    id: 'held-turns',
    title: 'Tool calls held for an operator',
    head: ['Held turn', 'Tool', 'Side effect', 'Attempts', 'Last error', 'Expires'],
    cells: ({ held, ...turn }) =>
      held
        ? [
            h('td', { class: 'mono' }, held.toolCode),
            h('td', {}, held.outcomeUnknown ? `${held.sideEffect} (outcome unknown)` : held.sideEffect),
            h('td', { class: 'num' }, held.attempts),
            h('td', { class: 'failure' }, `${held.failureType}: ${held.error}`),
            h('td', {}, when(held.expiresAt)),
          ]
        : unavailableCell(turn, 5),
  });
}

function approvalPanel(turns) {
  return waitingPanel(turns, {
    id: 'awaiting-approval',
    title: 'Tool calls awaiting approval',
    head: ['Turn', 'Conversation', 'Tool', 'Call', 'Requested', 'Expires'],
    cells: ({ approval, ...turn }) => [
      h(
        'td',
        {},
        h(
          'a',
          { href: `#/conversation/${encodeURIComponent(turn.conversationId)}`, class: 'mono' },
          turn.conversationId
        )
      ),
      approval
        ? [
            h('td', { class: 'mono' }, approval.toolCode),
            h('td', { class: 'num' }, approval.callIndex),
            h('td', {}, approval.requestedAt ? when(approval.requestedAt) : ''),
            h('td', {}, when(approval.expiresAt)),
          ]
        : unavailableCell(turn, 4),
    ],
  });
}

function conversationList(page) {
  const head = ['Conversation', 'Status', 'Last intent', 'Last state', 'Turns', 'Last message', 'Updated'];
  if (page.items.length === 0) {
    return h('p', { class: 'muted' }, 'No conversation matches. Run `npx convengine demo` to make some.');
  }
  return scrolling(
    'Conversations',
    h(
      'table',
      { class: 'list', id: 'conversations' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((t) => h('th', {}, t))
        )
      ),
      h('tbody', {}, page.items.map(row))
    )
  );
}

/** Temporal could not be read: the statuses below are the stored ones, so a parked conversation is not marked. */
const parkedUnknownNote = (page) =>
  page.parkedStatusUnknown
    ? h(
        'p',
        { class: 'muted', id: 'parked-unknown' },
        'Temporal could not be read: a conversation waiting on an approval or ' +
          'held for an operator shows its stored status (RUNNING or BLOCKED) until it can.'
      )
    : null;

/** The page of conversations, or the search's refusal (a filter it refuses): shown under the form. */
async function search(query) {
  try {
    return await api(`/api/v1/console/conversations?${query}`);
  } catch (err) {
    if (err.status === 400) return err;
    throw err;
  }
}

/** Conversations, newest first, searchable by id or text and filterable by status, intent and state. */
export async function conversationsPage({ main }, params) {
  const query = new URLSearchParams();
  for (const name of ['q', 'status', 'intent', 'state', 'after'])
    if (params.get(name)) query.set(name, params.get(name));
  query.set('limit', String(PAGE));
  const [page, held, approvals] = await Promise.all([search(query), heldTurns(), approvalTurns()]);
  const form = filterForm(params);
  const name = page instanceof Error ? refusedField(page) : null;
  const refused = name && FILTERS[name] ? form.elements[name] : null;
  mount(
    main,
    h('h1', {}, 'Conversations'),
    approvalPanel(approvals),
    heldPanel(held),
    form,
    page instanceof Error
      ? !refused && errorBox(page)
      : [parkedUnknownNote(page), conversationList(page), pager(params, page)]
  );
  // A filter the API refused: marked on its field, in words, with the focus there to correct it.
  if (refused) fieldError(refused, `${FILTERS[name].label}: ${FILTERS[name].accepts}.`);
}
