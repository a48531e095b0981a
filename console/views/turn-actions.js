import { api, ApiError, apiPath } from '../lib/api.js';
import { errorBox, fieldError, fieldOk, h, mount, show, when } from '../lib/dom.js';

/**
 * The outcome of the operator's last action: it stays on the page across the redraws the action causes (its
 * OPERATOR_ACTION row alone changes the turn) until dismissed or replaced by the next action's. `focus()` moves the
 * keyboard to it (the button pressed is disabled while the action runs, which would drop the focus to the page's
 * top); Dismiss hands the focus to `afterDismiss()`, as the button goes with the outcome.
 */
export function actionOutcome(afterDismiss = () => undefined) {
  const element = h('div', { id: 'action-outcome' });
  const dismiss = () => {
    report();
    afterDismiss();
  };
  const report = (...content) =>
    mount(
      element,
      content.length === 0
        ? null
        : h(
            'div',
            { class: 'outcome', tabindex: '-1' },
            content,
            h('button', { type: 'button', class: 'dismiss', onclick: dismiss }, 'Dismiss')
          )
    );
  const focus = () => element.querySelector('.outcome')?.focus();
  return { element, report, focus };
}

/**
 * Whether the API refused a decision before sending it (`details.decisionSent` false: no worker could take it, 503
 * WORKER_UNAVAILABLE or WORKER_LACKS_PATCH): the turn still waits on it, and deciding again may go through.
 */
export function notSent(err) {
  return err instanceof ApiError && err.details?.decisionSent === false;
}

/** What the page says of an action the API refused: a decision not sent in words, then the API's own code and text. */
function refused(action, err) {
  if (!notSent(err)) return [h('p', {}, `${action} failed`), errorBox(err)];
  const why =
    err.code === 'WORKER_UNAVAILABLE' ? "the turn's worker is unreachable" : 'no worker can take the decision now';
  const said = `${action}: nothing was sent, ${why}. The turn still waits; decide again once a worker runs.`;
  return [h('p', {}, said), errorBox(err)];
}

/**
 * Runs one audited console action and reports its answer; then `done()` re-reads the turn (and shows a failed
 * read itself). The page's action buttons stay disabled (`busy`) from the request until that re-read; the focus is on
 * the outcome from the start. `settle(err)` hears how it went (the refusal, or null) before that re-read.
 */
async function act(turn, action, body, { report, focus, done, busy }, settle = () => undefined) {
  report(h('p', { class: 'muted' }, `${action}…`));
  focus();
  busy(true);
  try {
    const answer = await api(apiPath`/api/v1/console/turns/${turn.workflowId}/actions/${action}`, {
      method: 'POST',
      body,
    });
    const outcome = answer?.turn?.outcome ? ` (${answer.turn.outcome})` : '';
    report(h('p', { class: 'ok', role: 'status' }, `${action}: done${outcome}`));
    settle(null);
  } catch (err) {
    report(...refused(action, err));
    settle(err);
  }
  focus();
  try {
    await done();
  } finally {
    busy(false);
  }
}

function button(text, onclick, extra = {}) {
  return h('button', { type: 'button', onclick, ...extra }, text);
}

/**
 * The questions askFirst has open on a turn page, each by what it asks about (`key`: the action and the decision it
 * would settle). A live redraw draws new panels: a question still open is asked again in its new panel, so the
 * operator keeps it (and keepFields their focus in it). `closed()`, after a redraw, takes back the questions no panel
 * asked again, as what they asked about is gone: the turn moved on or ended, or another operator decided. Unless the
 * turn's worker is unreachable (`unreadable`): then the panel is missing only because what the turn waits on cannot
 * be read, so those questions stay open, to be asked again when it can; `closed()` names them once (`waiting`).
 */
export function openQuestions() {
  const open = new Map();
  const waiting = new Set();
  let askedAgain = new Set();
  return {
    /** Whether `key` is open; then the panel drawing it asks it again. */
    reopen(key) {
      if (open.has(key)) askedAgain.add(key);
      waiting.delete(key);
      return open.has(key);
    },
    asked: (key, ask) => open.set(key, ask),
    answered(key) {
      open.delete(key);
      waiting.delete(key);
    },
    /** Before a redraw: every question is to be asked again. */
    redrawing() {
      askedAgain = new Set();
    },
    /**
     * After a redraw: the questions it did not ask again (their `ask`), which are closed now (`closed`), or, while the
     * turn is `unreadable`, newly left waiting for it (`waiting`).
     */
    closed(unreadable) {
      const gone = [...open].filter(([key]) => !askedAgain.has(key));
      if (unreadable) {
        const newly = gone.filter(([key]) => !waiting.has(key));
        for (const [key] of newly) waiting.add(key);
        return { closed: [], waiting: newly.map(([, ask]) => ask) };
      }
      for (const [key] of gone) {
        open.delete(key);
        waiting.delete(key);
      }
      return { closed: gone.map(([, ask]) => ask), waiting: [] };
    },
  };
}

/**
 * The button of an action that cannot be undone: a press asks in place (`ask.question`, which `id` names), Confirm
 * acts, Cancel or Escape puts the button back and the focus on it. Asking moves the focus to Cancel, the choice that
 * changes nothing, so a second Enter does not act. The question stays open across redraws (openQuestions, by
 * `ask.key`), and after a Confirm the API did not send (`onConfirm(settle)`: act calls `settle` with its refusal).
 */
function askFirst(id, text, ask, onConfirm, extra) {
  const { questions, key, question } = ask;
  const holder = h('span', { class: 'ask-first' });
  const original = button(text, () => asking(true), extra);
  const putBack = () => {
    questions.answered(key);
    mount(holder, original);
  };
  const back = () => {
    putBack();
    original.focus();
  };
  const asking = (focus) => {
    questions.asked(key, ask);
    // A decision the API did not send (its worker unreachable) leaves the question asked, to Confirm again.
    const settle = (err) => notSent(err) && asking(false);
    const confirm = button(
      'Confirm',
      () => {
        putBack();
        onConfirm(settle);
      },
      { 'aria-describedby': id }
    );
    const cancel = button('Cancel', back);
    const onkeydown = (event) => event.key === 'Escape' && back();
    const said = h('span', { class: 'question', id }, question);
    mount(holder, h('span', { role: 'group', 'aria-labelledby': id, onkeydown }, said, ' ', confirm, cancel));
    if (focus) cancel.focus();
  };
  if (questions.reopen(key)) asking(false);
  else mount(holder, original);
  return holder;
}

/**
 * One of a panel's choices: its button with what it does in words beside it, which describe it (`id`), not in a
 * tooltip a keyboard or touch never shows. With `ask`, what askFirst asks before it acts.
 */
function choice(id, text, what, onclick, { ask, ...extra } = {}) {
  const described = { ...extra, 'aria-describedby': id };
  const control = ask ? askFirst(`${id}-ask`, text, ask, onclick, described) : button(text, onclick, described);
  return h('div', { class: 'choice' }, control, ' ', h('span', { class: 'note', id }, what));
}

/** The tool call the turn is parked on, with Approve and Reject (D16). */
function approvalPanel(turn, page) {
  const p = turn.pendingApproval;
  const reason = h('input', { name: 'reason' });
  // The call shown here, so a late click cannot approve a later call the turn waits on by then.
  const decide = (action, settle) =>
    act(turn, action, { callIndex: p.callIndex, ...(reason.value ? { reason: reason.value } : {}) }, page, settle);
  // What each choice decides, in the words beside its button.
  const call = `call ${p.callIndex} of ${p.toolCode}`;
  return h(
    'section',
    { class: 'panel attention', id: 'pending-approval', 'data-call': p.callIndex },
    h('h2', {}, 'Waiting for approval'),
    h(
      'p',
      {},
      'The planner wants to call ',
      h('strong', {}, p.toolCode),
      ` (call ${p.callIndex}). It expires ${when(p.expiresAt)}.`
    ),
    h('pre', {}, show(p.args)),
    h('label', { class: 'reason' }, 'Reason (optional) ', reason),
    choice(
      'approve-what',
      'Approve',
      `Run ${call} with the arguments above; the turn goes on with its result.`,
      () => decide('approve'),
      { class: 'primary' }
    ),
    choice(
      'reject-what',
      'Reject',
      `Do not run ${call}: the turn goes on without it.`,
      (settle) => decide('reject', settle),
      {
        ask: {
          questions: page.questions,
          // An approval waits once per call and window: another operator's decision ends it.
          key: `reject/${p.callIndex}/${p.expiresAt}`,
          question: `Reject ${call}? The turn goes on without it.`,
          about: `${call} is no longer waiting for approval`,
        },
      }
    )
  );
}

/** A tool (or step) activity retrying in a running turn, with Temporal's own activity operations. */
function activityPanel(turn, activity, page) {
  const run = (action) => act(turn, action, { activityId: activity.activityId }, page);
  // The ids of what its choices do: one panel per activity, whatever characters its id has.
  const key = `activity-${String(activity.activityId).replace(/[^\w-]/g, '_')}`;
  return h(
    'section',
    { class: 'panel attention pending-activity', 'data-activity': activity.activityId },
    h('h2', {}, `${activity.type} is ${activity.paused ? 'paused' : 'retrying'}`),
    h(
      'p',
      {},
      `Attempt ${activity.attempt}${activity.maximumAttempts ? ` of ${activity.maximumAttempts}` : ''}, state ${activity.state}`,
      activity.nextAttemptAt ? `, next attempt ${when(activity.nextAttemptAt)}` : ''
    ),
    activity.lastFailure ? h('p', { class: 'failure' }, `Last failure: ${activity.lastFailure}`) : null,
    choice(`${key}-reset`, 'Retry now', 'Attempt 1 again, now (Temporal ResetActivity).', () => run('activity-reset'), {
      class: 'primary',
    }),
    activity.paused
      ? choice(`${key}-unpause`, 'Unpause', 'Attempts go on (Temporal UnpauseActivity).', () => run('activity-unpause'))
      : choice(`${key}-pause`, 'Pause', 'No new attempts until Unpause (Temporal PauseActivity).', () =>
          run('activity-pause')
        )
  );
}

function fact(term, ...value) {
  return [h('dt', {}, term), h('dd', {}, ...value)];
}

/** Mark done carries what the operator verified upstream; text that is no JSON never leaves the page. */
function verifiedResult(textarea) {
  try {
    const result = JSON.parse(textarea.value);
    fieldOk(textarea);
    return { result };
  } catch {
    fieldError(textarea, 'Verified result: write it as JSON, e.g. {"applicationId": "LA-90311"}.');
    return null;
  }
}

/** #22: a tool call out of retries, held for an operator: retry, skip, fail, or mark done with the verified result. */
function heldPanel(turn, page) {
  const held = turn.heldTool;
  const reason = h('input', { name: 'reason' });
  const result = h('textarea', { name: 'result', rows: 3, cols: 60, placeholder: '{"applicationId": "LA-90311"}' });
  const decide = (action, extra = {}, settle = undefined) => {
    const body = { callIndex: held.callIndex, ...(reason.value ? { reason: reason.value } : {}), ...extra };
    return act(turn, action, body, page, settle);
  };
  const markDone = () => {
    const verified = verifiedResult(result);
    if (verified) void decide('held-mark-done', verified);
  };
  return h(
    'section',
    { class: 'panel attention', id: 'held-tool', 'data-call': held.callIndex },
    h('h2', {}, 'Tool call held for an operator: ', h('span', { class: 'mono' }, held.toolCode)),
    held.outcomeUnknown
      ? h(
          'p',
          { class: 'failure', id: 'outcome-unknown' },
          'Outcome unknown: this write may have been applied. Verify upstream, then Mark done with what you found, or Fail.'
        )
      : null,
    h(
      'dl',
      { class: 'facts' },
      fact('Tool', h('strong', {}, held.toolCode), ` (call ${held.callIndex})`),
      fact('Side effect', held.sideEffect),
      fact('Attempts', String(held.attempts)),
      fact('Last error', h('span', { class: 'failure', id: 'held-error' }, `${held.failureType}: ${held.error}`)),
      fact('Held since', when(held.heldAt)),
      fact('Expires', `${when(held.expiresAt)} (then the turn answers without the tool)`)
    ),
    h('label', { class: 'reason' }, 'Reason (optional) ', reason),
    choice('held-retry-what', 'Retry', 'Run the call again now, same idempotency key.', () => decide('held-retry'), {
      class: held.outcomeUnknown ? undefined : 'primary',
    }),
    choice(
      'held-skip-what',
      'Skip',
      'The failure stands, as without a hold: the turn goes on with the tool error (TOOL_ERROR).',
      () => decide('held-skip')
    ),
    choice(
      'held-fail-what',
      'Fail turn',
      'The turn ends with the failure reply.',
      (settle) => decide('held-fail', {}, settle),
      {
        ask: {
          questions: page.questions,
          // This hold of the call: once decided elsewhere, a new hold of the same call is another decision.
          key: `held-fail/${held.callIndex}/${held.heldAt}`,
          question: 'Fail this turn? It ends with the failure reply, and that cannot be undone.',
          about: `call ${held.callIndex} of ${held.toolCode} is no longer held`,
        },
      }
    ),
    h('label', { class: 'verified' }, 'Verified result (JSON)', result),
    choice('held-done-what', 'Mark done', 'The call happened upstream: continue with this result.', markDone)
  );
}

/** The turn waits for an operator, but only its worker can say on what; the decisions need that. */
function unreadablePanel(turn) {
  return h(
    'section',
    { class: 'panel attention', id: 'waiting-unavailable' },
    h('h2', {}, 'Waiting for an operator'),
    h('p', { class: 'failure' }, turn.waitingUnavailable),
    h('p', {}, 'Start a worker (convengine worker), then reload this page to decide.')
  );
}

function retryPanel(turn, page) {
  return h(
    'section',
    { class: 'panel attention', id: 'failed-turn' },
    h('h2', {}, 'This turn failed'),
    h('p', { class: 'failure' }, turn.story.failure ?? ''),
    h('p', {}, 'Fix the cause, then re-run the turn with its original input (write tools dedupe by idempotency key).'),
    button('Retry turn', () => act(turn, 'retry', {}, page), { class: 'primary' })
  );
}

/**
 * The SRE actions that apply to this turn now; `page.report` shows an action's outcome (`page.focus` focuses it),
 * `page.done` re-reads, `page.busy` disables the buttons while an action is in flight, and `page.questions`
 * (openQuestions) keeps the questions the operator has open across redraws.
 */
export function actionPanels(turn, page) {
  const panels = [];
  if (turn.pendingApproval) panels.push(approvalPanel(turn, page));
  if (turn.heldTool) panels.push(heldPanel(turn, page));
  if (turn.waitingUnavailable) panels.push(unreadablePanel(turn));
  for (const activity of turn.pendingActivities) panels.push(activityPanel(turn, activity, page));
  if (turn.story.status === 'FAILED' || turn.story.status === 'TIMED_OUT' || turn.story.status === 'TERMINATED') {
    panels.push(retryPanel(turn, page));
  }
  return panels;
}
