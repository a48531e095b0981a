import { api } from '../lib/api.js';
import { errorBox, h, mount, show, when } from '../lib/dom.js';

/** Runs one audited console action and reports its answer in `out`; then `done()` re-reads the turn. */
async function act(turn, action, body, out, done) {
  mount(out, h('p', { class: 'muted' }, `${action}…`));
  try {
    const answer = await api(`/api/v1/console/turns/${turn.workflowId}/actions/${action}`, { method: 'POST', body });
    mount(
      out,
      h(
        'p',
        { class: 'ok', role: 'status' },
        `${action}: done`,
        answer?.turn?.outcome ? ` (${answer.turn.outcome})` : ''
      )
    );
  } catch (err) {
    mount(out, errorBox(err));
  }
  await done();
}

function button(text, onclick, extra = {}) {
  return h('button', { type: 'button', onclick, ...extra }, text);
}

/** The tool call the turn is parked on, with Approve and Reject (D16). */
function approvalPanel(turn, done) {
  const p = turn.pendingApproval;
  const reason = h('input', { name: 'reason', placeholder: 'reason (optional)' });
  const out = h('div');
  const decide = (action) => act(turn, action, reason.value ? { reason: reason.value } : {}, out, done);
  return h(
    'section',
    { class: 'panel attention', id: 'pending-approval' },
    h('h2', {}, 'Waiting for approval'),
    h(
      'p',
      {},
      'The planner wants to call ',
      h('strong', {}, p.toolCode),
      ` (call ${p.callIndex}). It expires ${when(p.expiresAt)}.`
    ),
    h('pre', {}, show(p.args)),
    reason,
    button('Approve', () => decide('approve'), { class: 'primary' }),
    button('Reject', () => decide('reject')),
    out
  );
}

/** A tool (or step) activity retrying in a running turn, with Temporal's own activity operations. */
function activityPanel(turn, activity, done) {
  const out = h('div');
  const run = (action) => act(turn, action, { activityId: activity.activityId }, out, done);
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
    button('Retry now', () => run('activity-reset'), {
      class: 'primary',
      title: 'Temporal ResetActivity: attempt 1, now',
    }),
    activity.paused
      ? button('Unpause', () => run('activity-unpause'))
      : button('Pause', () => run('activity-pause'), { title: 'Temporal PauseActivity: no new attempts' }),
    out
  );
}

function retryPanel(turn, done) {
  const out = h('div');
  return h(
    'section',
    { class: 'panel attention', id: 'failed-turn' },
    h('h2', {}, 'This turn failed'),
    h('p', { class: 'failure' }, turn.story.failure ?? ''),
    h('p', {}, 'Fix the cause, then re-run the turn with its original input (write tools dedupe by idempotency key).'),
    button('Retry turn', () => act(turn, 'retry', {}, out, done), { class: 'primary' }),
    out
  );
}

/** The SRE actions that apply to this turn now. */
export function actionPanels(turn, done) {
  const panels = [];
  if (turn.pendingApproval) panels.push(approvalPanel(turn, done));
  for (const activity of turn.pendingActivities) panels.push(activityPanel(turn, activity, done));
  if (turn.story.status === 'FAILED' || turn.story.status === 'TIMED_OUT' || turn.story.status === 'TERMINATED') {
    panels.push(retryPanel(turn, done));
  }
  return panels;
}
