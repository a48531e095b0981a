import { api } from '../lib/api.js';
import { badge, errorBox, h, mount, when } from '../lib/dom.js';

const PAGE = 25;

/** The statuses a conversation has (core/session.ts CONVERSATION_STATUSES); '' is any. */
const STATUSES = ['RUNNING', 'BLOCKED'];

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
    field('q', 'Search', 'conversation id or text'),
    statusField(params),
    field('intent', 'Last intent', 'ORDER_DIAGNOSTICS'),
    field('state', 'Last state', 'COMPLETED'),
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
    h('td', { class: 'said' }, c.lastUserText ?? ''),
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
    ` ${page.items.length} shown of ${page.total} `,
    page.next ? link(page.next, 'older →') : null
  );
}

/** #22: turns whose tool call waits for an operator; an API without held-tool routes has none (404). */
async function heldTurns() {
  try {
    return (await api('/api/v1/admin/turns/held')).turns;
  } catch (err) {
    return err.status === 404 ? [] : err;
  }
}

function heldPanel(turns) {
  if (turns instanceof Error) return errorBox(turns);
  if (turns.length === 0) return null;
  const head = ['Held turn', 'Tool', 'Side effect', 'Attempts', 'Last error', 'Expires'];
  return h(
    'section',
    { class: 'panel attention', id: 'held-turns' },
    h('h2', {}, `Tool calls held for an operator (${turns.length})`),
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
        turns.map(({ workflowId, held }) =>
          h(
            'tr',
            {},
            h('td', {}, h('a', { href: `#/turn/${encodeURIComponent(workflowId)}`, class: 'mono' }, workflowId)),
            h('td', { class: 'mono' }, held.toolCode),
            h('td', {}, held.outcomeUnknown ? `${held.sideEffect} (outcome unknown)` : held.sideEffect),
            h('td', { class: 'num' }, held.attempts),
            h('td', { class: 'failure' }, `${held.failureType}: ${held.error}`),
            h('td', {}, when(held.expiresAt))
          )
        )
      )
    )
  );
}

function conversationList(page) {
  const head = ['Conversation', 'Status', 'Last intent', 'Last state', 'Turns', 'Last message', 'Updated'];
  if (page.items.length === 0) {
    return h('p', { class: 'muted' }, 'No conversation matches. Run `npx convengine demo` to make some.');
  }
  return h(
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
  );
}

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
  const [page, held] = await Promise.all([search(query), heldTurns()]);
  mount(
    main,
    h('h1', {}, 'Conversations'),
    heldPanel(held),
    filterForm(params),
    page instanceof Error ? errorBox(page) : [conversationList(page), pager(params, page)]
  );
}
