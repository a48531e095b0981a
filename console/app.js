/**
 * The turn console: plain ES modules, no build step. Routes live in the URL hash so that every
 * page is a link an operator can share: #/ (conversations), #/conversation/<id>, #/turn/<workflowId>.
 */
import { ApiError, token } from './lib/api.js';
import { errorBox, h, mount } from './lib/dom.js';
import { CONVERSATION_ID, TURN_ID } from './lib/ids.js';
import { conversationsPage } from './views/conversations.js';
import { conversationPage } from './views/conversation.js';
import { turnPage } from './views/turn.js';

const main = document.getElementById('main');
/** Stops the live updates of the page being left. */
let leave = () => undefined;

/** A hash that is no URI (a `%` not followed by two hex digits, or bytes that are no UTF-8), from a hand-edited link. */
class MalformedAddress extends Error {
  code = 'MALFORMED_ADDRESS';
}

/** A hash that names no page of the console: an unknown page, or an id that is not one (checked before any request). */
class NoSuchPage extends Error {
  code = 'PAGE_NOT_FOUND';
}

function decoded(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new MalformedAddress(
      `This address is not valid (${location.hash}): open the conversation list from the top bar.`
    );
  }
}

/**
 * The page a hash names, and its title. Its path and its query are split before anything is decoded, so that text searched for
 * (`R&D`, `C++`, `50%?`) stays one value; every part is decoded on its own.
 */
function route() {
  const hash = location.hash.replace(/^#/, '');
  const at = hash.indexOf('?');
  const [path, query] = at < 0 ? [hash, ''] : [hash.slice(0, at), hash.slice(at + 1)];
  const parts = path.split('/').filter(Boolean).map(decoded);
  decoded(query);
  const params = new URLSearchParams(query);
  if (parts.length === 0) return { title: 'Conversations', page: (ctx) => conversationsPage(ctx, params) };
  const [kind, id] = parts;
  // Each id is checked against the pattern the API validates it with (lib/ids.js): text that is no id, such as
  // `../../v1/whatif?…`, never reaches a request.
  if (kind === 'conversation' && parts.length === 2 && CONVERSATION_ID.test(id)) {
    return { title: `Conversation ${id}`, page: (ctx) => conversationPage(ctx, id) };
  }
  if (kind === 'turn' && parts.length === 2 && TURN_ID.test(id)) {
    return { title: `Turn ${id}`, page: (ctx) => turnPage(ctx, id) };
  }
  throw new NoSuchPage(`The console has no page at ${location.hash}: open the conversation list from the top bar.`);
}

/**
 * Whether the API refused the token the console sent: none or a wrong one (401), or the gateway token (API_TOKEN) where
 * OPERATOR_API_TOKEN is set (403 OPERATOR_TOKEN_REQUIRED); the token form asks for another.
 */
const refusedToken = (err) =>
  err instanceof ApiError && (err.status === 401 || (err.status === 403 && err.code === 'OPERATOR_TOKEN_REQUIRED'));

/**
 * The token page: its heading and form; after a refusal, with why the API refused (a wrong token: `invalid_token`;
 * none sent; the gateway token: `OPERATOR_TOKEN_REQUIRED`), so an operator who typed a token sees it was wrong rather
 * than the same form again. The field is then marked and described by the refusal, for whoever lands on it. The
 * page after a token is given is focused as one navigated to: the form that had the focus is gone.
 */
function tokenPage(retry, refusal = null) {
  const refused =
    refusal && token.get()
      ? h(
          'div',
          { class: 'error', role: 'alert', id: 'token-refused' },
          `The API refused this token (${refusal.code}: ${refusal.message}). Check it and try again.`
        )
      : null;
  const input = h('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    placeholder: 'OPERATOR_API_TOKEN',
    'aria-invalid': refused ? 'true' : undefined,
    'aria-describedby': refused ? 'token-refused' : undefined,
  });
  const form = h(
    'form',
    {
      class: 'token-form',
      onsubmit: (event) => {
        event.preventDefault();
        token.set(input.value.trim());
        retry({ navigated: true });
      },
    },
    h(
      'p',
      {},
      'This API needs its operator token (OPERATOR_API_TOKEN; API_TOKEN when that is not set). ' +
        'It is kept in this browser tab only.'
    ),
    refused,
    h('label', {}, 'API token ', input),
    h('button', { type: 'submit' }, 'Use token')
  );
  return [h('h1', {}, 'API token'), form];
}

/** The token page shown, its field focused: after a refusal (so the operator types the fix there), or when asked. */
function showTokenPage(refusal, focus) {
  entitle('API token');
  mount(main, tokenPage(render, refusal));
  const input = main.querySelector('input[name=token]');
  if (focus || input?.hasAttribute('aria-describedby')) input?.focus();
}

/** The tab's title: the page's own first, so that tabs, history and a screen reader tell the pages apart. */
function entitle(title) {
  document.title = `${title} · ConvEngine console`;
}

/** A failure's page title and heading: an address or a record that is not there, or an error. */
function failureTitle(err) {
  return err instanceof MalformedAddress || err instanceof NoSuchPage || err?.status === 404 ? 'Not found' : 'Error';
}

/**
 * The focus on the new page's heading (or its message), as a screen reader user would otherwise stay on the link
 * that was followed, now gone; not when the page put it somewhere itself (a refused field).
 */
function focusPage() {
  if (main.contains(document.activeElement)) return;
  const target = main.querySelector('h1') ?? main.firstElementChild;
  target?.setAttribute('tabindex', '-1');
  target?.focus();
}

async function render({ navigated = false } = {}) {
  leave();
  leave = () => undefined;
  const ctx = { main, onLeave: (stop) => (leave = stop), rerender: render };
  try {
    const { title, page } = route();
    entitle(title);
    mount(main, h('p', { class: 'muted' }, 'Loading…'));
    await page(ctx);
  } catch (err) {
    if (refusedToken(err)) showTokenPage(err, false);
    else failurePage(err);
  }
  if (navigated) focusPage();
}

/** A failure's page: its heading (Not found, Error) and what failed. */
function failurePage(err) {
  const title = failureTitle(err);
  entitle(title);
  mount(main, h('h1', {}, title), errorBox(shown(err)));
}

/**
 * What a failure shows: the API's refusal or the console's own error as they are; anything else (a script error on
 * an answer the page did not expect) as a console error, its text left to the browser's console.
 */
function shown(err) {
  if (err instanceof ApiError || err instanceof MalformedAddress || err instanceof NoSuchPage) return err;
  console.error(err);
  return {
    code: 'CONSOLE_ERROR',
    message: 'This page could not be shown from the API’s answer. Reload, or open the conversation list.',
  };
}

document.getElementById('token-button').addEventListener('click', () => showTokenPage(null, true));
window.addEventListener('hashchange', () => render({ navigated: true }));
void render();
