import { badge, duration, h, scrolling, show } from '../lib/dom.js';

const MCP_UNITS = { prepare: 'McpPrepare', plan: 'McpPlan', tool: 'McpToolCall', finalize: 'McpFinalize' };

/** A tool call's own key: a planner's call (`18-McpTool-tool-3`) or a request's direct call (`17-…-direct-tool`). */
const TOOL_CALL = String.raw`\d+-McpTool-tool-\d+|\d+-[A-Za-z]+-direct-tool`;
/** A hold of a tool call (core/mcp/hold.ts, `-hold-<h>-held`, `-hold-<h>-resolved`) or its approval request. */
const HOLD_STEP = new RegExp(String.raw`^((?:${TOOL_CALL})-(?:hold-\d+|approval)-[a-z]+)(?:-carried)?$`);
const TOOL_CALL_RUN = new RegExp(String.raw`^(${TOOL_CALL})(-retry-\d+|-done|-failed)?$`);
/** A row of a call's hold h (`-hold-<h>-…`), or of its run after hold h (`-retry-<h>`). */
const HELD_RUN = new RegExp(String.raw`^(${TOOL_CALL})-(?:hold-(\d+)-|retry-(\d+)$)`);
/** A hold's key as its call and its own part: `…-tool-3-hold-1-held` (call 3), `…-direct-tool-approval-requested`. */
const HOLD_OF_CALL = /-(?:tool-(\d+)|direct-tool)-((?:hold-\d+|approval)-[a-z]+)$/;
/** An McpToolHold step's summary (workflows/tool-hold.ts, tool-approval.ts): its call and what it recorded. */
const HOLD_SUMMARY = /\(call (\d+)\) (approval requested|[A-Za-z]+)/;

/**
 * The step run that wrote an audit row, from its call key: `05-DialogueAct` is the DialogueAct
 * step, `18-McpTool-plan-2` planner iteration 2, `18-McpTool-tool-3` tool call 3, `17-ToolOrchestration-direct-tool`
 * the request's direct call, a held call run again its own run of that call (toolRun), and a hold's or approval
 * request's rows (`…-tool-3-hold-1-held`) the McpToolHold step called with that key (holdRows). Null for rows no
 * single step owns: decisions carried to the next step and operator actions.
 */
function stepOf(callKey, { heldRuns }) {
  const hold = HOLD_STEP.exec(callKey);
  if (hold) return `McpToolHold@${holdOfCall(hold[1])}`;
  const tool = TOOL_CALL_RUN.exec(callKey);
  if (tool) {
    const planned = /-tool-(\d+)$/.exec(tool[1]);
    const run = toolRun(tool[1], tool[2], heldRuns);
    return planned ? `McpToolCall#${planned[1]}/${run}` : `DirectToolCall#${run}`;
  }
  const mcp = /^\d+-McpTool-(prepare|plan|finalize)(?:-(\d+))?$/.exec(callKey);
  if (mcp) return `${MCP_UNITS[mcp[1]]}#${mcp[2] ?? 1}`;
  const step = /^\d+-([A-Za-z]+)$/.exec(callKey);
  return step ? `${step[1]}#1` : null;
}

/**
 * Which hold of which call a hold key is, as its McpToolHold step's summary says it (holdRows): `3/hold-1-held`. A
 * request's direct call is call 0 (its held call's callIndex).
 */
function holdOfCall(holdKey) {
  const hold = HOLD_OF_CALL.exec(holdKey);
  return hold ? `${hold[1] ?? 0}/${hold[2]}` : holdKey;
}

/**
 * Which run of its tool call (`call`, its own key) a tool call's row is: an operator's retry of a held call is a new
 * activity of the same call, whose rows are keyed as core/mcp/hold.ts runs it (keys that never change, being in
 * histories): `tool-3` the first run, `tool-3-retry-<h>` the run after hold h, so run h + 1; `tool-3-done` (Mark done)
 * the run after the last hold. Each run follows one hold, so that is the call's holds (`heldRuns`: the most its keys
 * show, from `-hold-<h>-` rows or, were those not audited, a retry's h + 1) plus one. A direct call whose failure
 * stands records it in one more run (`-failed`), after the failed run: after the last hold, or after the first run.
 */
function toolRun(call, again, heldRuns) {
  if (!again) return 1;
  if (again === '-done') return (heldRuns.get(call) ?? 1) + 1;
  if (again === '-failed') return Math.max(heldRuns.get(call) ?? 0, 1) + 1;
  return Number(again.slice('-retry-'.length)) + 1;
}

/**
 * What stepOf needs of the run's rows: the holds each tool call's rows show (`18-McpTool-tool-3` → 2), for toolRun,
 * and the order of the hold keys in the rows (its activity key → its number), for a history that does not say which
 * key each McpToolHold step ran under (holdRows).
 */
function toolCallRuns(audits) {
  const heldRuns = new Map();
  const holdSteps = new Map();
  for (const { callKey } of audits) {
    const hold = HOLD_STEP.exec(callKey);
    const ofCall = hold && holdOfCall(hold[1]);
    if (ofCall && !holdSteps.has(ofCall)) holdSteps.set(ofCall, holdSteps.size + 1);
    const held = HELD_RUN.exec(callKey);
    if (!held) continue;
    const count = held[2] ? Number(held[2]) : Number(held[3]) + 1;
    heldRuns.set(held[1], Math.max(heldRuns.get(held[1]) ?? 0, count));
  }
  return { heldRuns, holdSteps };
}

/**
 * Which run of its step an activity is, as stepOf names it: a tool call by the call number in its summary (by its
 * order without one) and which run of that call it is (`runs` counts them, in timeline order), else by its order.
 */
function runOf(step, runs) {
  if (step.type !== 'McpToolCall') return step.iteration;
  const call = /\(call (\d+)/.exec(step.summary ?? '')?.[1] ?? String(step.iteration);
  const run = (runs.get(call) ?? 0) + 1;
  runs.set(call, run);
  return `${call}/${run}`;
}

/**
 * The rows of an McpToolHold step, by the hold its summary names (`McpToolHold: loan.submit (call 3) held`, then
 * `… retry`): the call, what it recorded (held, the operator's action for `-resolved`, an approval request) and, for
 * a hold, which of the call's holds it is, counted in history (`held`, one each; every step is in it, whatever the
 * audit policy wrote). A step without such a summary (an older history) takes the n-th hold key in row order, n its
 * number: right unless the policy dropped every row of an earlier hold step.
 */
function holdRows(step, { byStep, holdSteps }, holdsSeen) {
  const said = HOLD_SUMMARY.exec(step.summary ?? '');
  let key = [...holdSteps].find(([, n]) => n === step.iteration)?.[0];
  if (said?.[2] === 'approval requested') key = `${said[1]}/approval-requested`;
  else if (said) {
    const held = (holdsSeen.get(said[1]) ?? 0) + (said[2] === 'held' ? 1 : 0);
    holdsSeen.set(said[1], held);
    key = `${said[1]}/hold-${held}-${said[2] === 'held' ? 'held' : 'resolved'}`;
  }
  return key === undefined ? undefined : byStep.get(`McpToolHold@${key}`);
}

/**
 * The rows of the turn's latest run (`runId`, as the workflow names it) by step; every run of a turn writes rows of
 * its own, so an earlier run's rows are kept apart, run by run, in `earlier` (a Map of run id to rows, oldest run
 * first) rather than shown beside the latest run's steps, also before that run wrote a row.
 */
function auditsByStep(audits, lastRun) {
  const byStep = new Map();
  const other = [];
  const earlier = new Map();
  const runs = toolCallRuns(audits.filter((row) => !row.runId || row.runId === lastRun));
  for (const row of audits) {
    const step = stepOf(row.callKey, runs);
    if (row.runId && row.runId !== lastRun) earlier.set(row.runId, [...(earlier.get(row.runId) ?? []), row]);
    else if (step) byStep.set(step, [...(byStep.get(step) ?? []), row]);
    else other.push(row);
  }
  return { byStep, other, earlier, holdSteps: runs.holdSteps };
}

/**
 * An earlier run's rows, said for what the run was: a failed message that a later message superseded (a turn that
 * fails commits nothing, so the next message takes its number), or the same message run again (a retry, a reset).
 */
function earlierRunPanel(runId, rows, run) {
  const id = `earlier-run-${runId}`;
  if (run?.superseded) {
    return h(
      'section',
      { class: 'panel superseded-run', id },
      h('h2', {}, 'A failed earlier message, superseded'),
      h(
        'p',
        { class: 'note' },
        'This message failed before anything of it was committed; the next message took its turn number, as another ',
        `run of this turn (run ${runId}). It was not run again.`
      ),
      h('p', { class: 'said' }, run.userInput),
      auditList(rows)
    );
  }
  return auditPanel(id, `Rows of an earlier run of this turn (the turn was run again after it; run ${runId})`, rows);
}

function auditList(rows) {
  if (!rows?.length) return null;
  return h(
    'details',
    { class: 'audits' },
    h(
      'summary',
      {},
      `${rows.length} audit row${rows.length === 1 ? '' : 's'}: `,
      [...new Set(rows.map((r) => r.stage))].join(', ')
    ),
    h(
      'ul',
      {},
      rows.map((r) => h('li', {}, h('span', { class: 'stage' }, r.stage), payloadBox(r)))
    )
  );
}

/**
 * An audit row's payload in its own scroll box (max-height in console.css), a named region the keyboard can reach to
 * scroll it, as scrolling() makes a table's box: not every browser lets the keyboard into a scroll box by itself.
 */
function payloadBox(row) {
  return h('pre', { tabindex: '0', role: 'region', 'aria-label': `${row.stage} payload` }, show(row.payload));
}

function outcomeCell(step) {
  if (step.outcome === 'HANDED_OFF') return h('td', {}, badge('HANDED_OFF'), h('div', { class: 'note' }, step.note));
  const failure = step.failure
    ? h(
        'div',
        { class: 'failure' },
        `${step.failure.type ?? 'failure'}${step.failure.nonRetryable ? ' (non-retryable)' : ''}: ${step.failure.message}`
      )
    : null;
  return h('td', {}, badge(step.outcome), failure);
}

function stepRow(step, audits) {
  const label = step.summary && step.summary !== step.type ? step.summary : step.type;
  return h(
    'tr',
    { class: `step ${step.outcome === 'FAILED' ? 'failed' : ''}`, 'data-type': step.type },
    h('td', { class: 'num' }, step.offsetMs === null ? '' : `+${duration(step.offsetMs)}`),
    h(
      'td',
      {},
      h('strong', {}, step.type),
      step.iteration > 1 || /^Mcp(Plan|ToolCall)$/.test(step.type)
        ? h('span', { class: 'iter' }, ` #${step.iteration}`)
        : null,
      step.local ? h('span', { class: 'local', title: 'local activity (a marker in history)' }, ' local') : null,
      step.inRun
        ? h('span', { class: 'local', title: 'ran in a step run: one activity with the steps next to it' }, ' in a run')
        : null,
      label !== step.type ? h('div', { class: 'summary' }, label) : null,
      auditList(audits)
    ),
    h('td', { class: 'num' }, step.attempt ?? ''),
    h('td', { class: 'num' }, duration(step.durationMs)),
    outcomeCell(step)
  );
}

function eventRow(item) {
  const text =
    item.kind === 'search-attributes'
      ? Object.entries(item.values)
          .map(([k, v]) => `${k}=${show(v)}`)
          .join('  ')
      : item.kind === 'close'
        ? `workflow ${item.status}${item.failure ? `: ${item.failure}` : ''}`
        : item.text;
  return h(
    'tr',
    { class: `event event-${item.kind}` },
    h('td', { class: 'num' }, item.offsetMs === null ? '' : `+${duration(item.offsetMs)}`),
    h('td', { colspan: 4 }, h('em', {}, text))
  );
}

/** A panel of audit rows no step of the story owns; none when there are no such rows. */
function auditPanel(id, title, rows) {
  return rows.length ? h('section', { class: 'panel', id }, h('h2', {}, title), auditList(rows)) : null;
}

/**
 * Every step of the turn's history in order, with its audit rows, and what the workflow itself did.
 * A handed-off local attempt wrote nothing: its call's rows belong to the regular run after it.
 */
export function timeline(story, audits, runId, earlierRuns = []) {
  const audited = auditsByStep(audits, runId);
  const { byStep, other, earlier } = audited;
  const runs = new Map();
  const holdsSeen = new Map();
  const rowsOf = (step) => {
    if (step.outcome === 'HANDED_OFF') return null;
    if (step.type === 'McpToolHold') return holdRows(step, audited, holdsSeen);
    return byStep.get(`${step.type}#${runOf(step, runs)}`);
  };
  const rows = story.timeline.map((item) => (item.kind === 'step' ? stepRow(item, rowsOf(item)) : eventRow(item)));
  return [
    scrolling(
      'Timeline',
      h(
        'table',
        { class: 'timeline', id: 'timeline' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['At', 'Step', 'Attempt', 'Took', 'Outcome'].map((t) => h('th', {}, t))
          )
        ),
        h('tbody', {}, rows)
      )
    ),
    auditPanel('other-audits', 'Decisions and operator actions in ce_audit', other),
    h(
      'div',
      { id: 'earlier-run-audits' },
      [...earlier].map(([runId, rows]) =>
        earlierRunPanel(
          runId,
          rows,
          earlierRuns.find((run) => run.runId === runId)
        )
      )
    ),
  ];
}
