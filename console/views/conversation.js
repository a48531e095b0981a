import { api } from '../lib/api.js';
import { badge, h, mount, show, when } from '../lib/dom.js';
import { conversationPanels } from '../extensions.js';

function turnRow(t) {
  const reply = t.assistantOutput?.value ?? t.assistantOutput;
  return h(
    'tr',
    {},
    h('td', { class: 'num' }, h('a', { href: `#/turn/${t.workflowId}` }, `Turn ${t.turnNumber}`)),
    h('td', {}, badge(t.status)),
    h('td', {}, t.outcome ? badge(t.outcome) : ''),
    h('td', { class: 'said' }, t.userInput ?? ''),
    h('td', { class: 'said' }, show(reply)),
    h('td', {}, when(t.startedAt))
  );
}

/** One conversation: where it stands and every turn workflow it ran (running and failed ones too). */
export async function conversationPage({ main }, conversationId) {
  const { conversation: c, turns } = await api(`/api/v1/console/conversations/${conversationId}/turns`);
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
      h('tbody', {}, turns.map(turnRow))
    ),
    panels
  );
  for (const panel of conversationPanels) panels.append(await panel(c));
}
