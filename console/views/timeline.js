import { badge, duration, h, scrolling, show } from '../lib/dom.js';

const MCP_UNITS = { prepare: 'McpPrepare', plan: 'McpPlan', tool: 'McpToolCall', finalize: 'McpFinalize' };

/**
 * The step run that wrote an audit row, from its call key: `05-DialogueAct` is the DialogueAct
 * step, `18-McpTool-plan-2` planner iteration 2, `18-McpTool-tool-3` tool call 3. Null for rows
 * no single step owns (decisions carried to the next step, operator actions).
 */
function stepOf(callKey) {
  const mcp = /^\d+-McpTool-(prepare|plan|tool|finalize)(?:-(\d+))?$/.exec(callKey);
  if (mcp) return `${MCP_UNITS[mcp[1]]}#${mcp[2] ?? 1}`;
  const step = /^\d+-([A-Za-z]+)$/.exec(callKey);
  return step ? `${step[1]}#1` : null;
}

/** Which run of its step an activity is: a tool call by the call number in its summary, else by its order. */
function runOf(step) {
  const call = step.type === 'McpToolCall' ? /\(call (\d+)/.exec(step.summary ?? '') : null;
  return call ? Number(call[1]) : step.iteration;
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
  for (const row of audits) {
    const step = stepOf(row.callKey);
    if (row.runId && row.runId !== lastRun) earlier.set(row.runId, [...(earlier.get(row.runId) ?? []), row]);
    else if (step) byStep.set(step, [...(byStep.get(step) ?? []), row]);
    else other.push(row);
  }
  return { byStep, other, earlier };
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
  const { byStep, other, earlier } = auditsByStep(audits, runId);
  const rowsOf = (step) => (step.outcome === 'HANDED_OFF' ? null : byStep.get(`${step.type}#${runOf(step)}`));
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
