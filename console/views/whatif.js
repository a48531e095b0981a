import { api } from '../lib/api.js';
import { errorBox, fieldError, fieldOk, h, mount, refusedField, scrolling, show } from '../lib/dom.js';

/** One turn of a replay: what it said, whether the draft changes it, and each change recorded → replayed. */
function turnRow(turn) {
  const changes = turn.changes.map((c) =>
    h('li', {}, h('strong', {}, c.field), ': ', show(c.recorded), ' → ', show(c.replayed))
  );
  const missing = turn.missing.map((m) => h('li', { class: 'muted' }, `needs ${m.kind}: ${m.what}`));
  const superseded = (turn.superseded ?? []).map((message) =>
    h(
      'li',
      { class: 'muted superseded' },
      'not replayed: ',
      h('q', {}, message),
      ' failed before this message took its turn number'
    )
  );
  return h(
    'tr',
    { 'data-turn': turn.turnNumber },
    h('td', { class: 'num' }, turn.turnNumber),
    h('td', { class: 'said' }, turn.userText),
    h('td', {}, h('span', { class: `badge badge-${turn.status}` }, turn.status)),
    h('td', {}, changes.length || missing.length || superseded.length ? h('ul', {}, superseded, changes, missing) : '—')
  );
}

/** The replay in one sentence: what the status region says. */
function summary(result) {
  const counts = Object.entries(result.summary).map(([status, n]) => `${n} ${status}`);
  return h(
    'p',
    { id: 'whatif-summary' },
    `Against config ${result.config.version}: ${result.differs ? 'differs' : 'no turn changes'} (${counts.join(', ')}).`
  );
}

function report(result) {
  return scrolling(
    'What-if turns',
    h(
      'table',
      { class: 'list', id: 'whatif-turns' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Turn', 'User said', 'Replay', 'Changes'].map((t) => h('th', {}, t))
        )
      ),
      h('tbody', {}, result.turns.map(turnRow))
    )
  );
}

/**
 * What-if (docs/whatif.md): replays this conversation against a stored config version, or the current one, on
 * request only: a replay is bounded per API process (429 WHATIF_BUSY), so the page never starts one by itself.
 */
export async function whatifPanel(conversation) {
  const version = h('input', { name: 'config', value: 'current', size: 18 });
  // A status region, on the page before the replay is asked for: a screen reader says "Replaying…" and then the
  // summary as they replace each other in it, without the focus leaving the form (the table is not read out).
  const status = h('div', { id: 'whatif-status', role: 'status' });
  const out = h('div', { id: 'whatif-result' });
  const run = async (event) => {
    event.preventDefault();
    const button = event.target.querySelector('button');
    button.disabled = true;
    fieldOk(version);
    mount(status, h('p', { class: 'muted' }, 'Replaying…'));
    mount(out);
    try {
      const query = new URLSearchParams({ conversation: conversation.conversationId, config: version.value.trim() });
      const result = await api(`/api/v1/whatif?${query}`);
      mount(status, summary(result));
      mount(out, report(result));
    } catch (err) {
      mount(status);
      if (refusedField(err) !== 'config') return mount(out, errorBox(err));
      fieldError(version, 'Config version: 16 hex digits (the config version a turn shows) or "current".');
    } finally {
      button.disabled = false;
    }
  };
  return h(
    'section',
    { class: 'panel', id: 'whatif' },
    h('h2', {}, 'What if'),
    h('p', {}, 'Replay this conversation against a config version (16 hex digits) or "current", writing nothing.'),
    h(
      'form',
      { onsubmit: run },
      h('label', {}, 'Config version ', version),
      ' ',
      h('button', { type: 'submit' }, 'Replay')
    ),
    status,
    out
  );
}
