import { AuditStage } from '../../../core/audit/payloads';
import { readStageRows } from '../../../core/audit/read';
import { readTurnSearchAttributes, TurnOutcomeValue } from '../../../workflows/search-attributes';
import type { ConsolePorts } from '../../console/ports';
import { runsOfTurn } from '../../console/turn-runs';
import { turnViewSchema } from '../../console/schemas';
import { turnStory } from '../../history/turn-story';
import { errorResponse, TURN_NOT_FOUND_WHEN } from '../../error-responses';
import { conversationRetired, RETIRED_WHEN } from '../../message-refusals';
import { route } from '../../openapi';
import type { ApiPorts } from '../../ports';
import { onTurnNamed, parseTurnId, turnIdParams, turnNotFound } from '../../turns/turn-id';
import { WorkerUnavailableError } from '../../turns/turn-worker';
import type { ConsoleRoute } from './index';

/** GET one turn's story, told from its event history, with what is waiting on an operator. */
export const turnViewRoute: ConsoleRoute = (app, ports, consolePorts, docs) => {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/turns/:workflowId',
      summary: "A turn's story: every step from its event history, decisions, approvals, audit rows, response.",
      schema: {
        params: turnIdParams,
        response: {
          200: turnViewSchema,
          404: errorResponse(TURN_NOT_FOUND_WHEN),
          410: errorResponse(`CONVERSATION_RETIRED: ${RETIRED_WHEN}`),
        },
      },
    },
    async (request) =>
      onTurnNamed((request.params as { workflowId: string }).workflowId, (id) => turnView(ports, consolePorts, id))
  );
};

async function turnView(ports: ApiPorts, consolePorts: ConsolePorts, workflowId: string) {
  const { conversationId, turnNumber } = parseTurnId(workflowId);
  // Temporal keeps a pruned or erased conversation's histories until its retention: they are not to be read again.
  if (await consolePorts.retired(conversationId)) throw conversationRetired(conversationId);
  const latest = await consolePorts.inspector.history(workflowId);
  if (!latest) throw turnNotFound(workflowId);
  const { runId, events, startedWith } = latest;
  const story = turnStory(events);
  const running = story.status === 'RUNNING';
  const outcome = running ? readTurnSearchAttributes(story.searchAttributes).turnOutcome : null;
  const { inspector } = consolePorts;
  const [audits, pendingActivities, pendingApproval, heldTool, conversation] = await Promise.all([
    consolePorts.turnAudits(conversationId, turnNumber),
    running ? inspector.pendingActivities(workflowId) : [],
    outcome === TurnOutcomeValue.AwaitingApproval ? readable(inspector.pendingApproval(workflowId)) : NOTHING,
    outcome === TurnOutcomeValue.Held ? readable(inspector.heldTool(workflowId)) : NOTHING,
    consolePorts.read(() => ports.conversations.conversation(conversationId)),
  ]);
  const said = conversation?.history.find((h) => h.turnNumber === turnNumber);
  const { userInput, earlierRuns } = runsOfTurn(audits, runId, {
    committed: said?.userInput ?? null,
    started: startedWith,
  });
  const output = readStageRows(audits, AuditStage.AssistantOutput).at(-1)?.payload.output;
  const ui = consolePorts.temporalUi;
  return {
    workflowId,
    conversationId,
    turnNumber,
    runId,
    userInput,
    response: said?.assistantOutput ?? output ?? null,
    story,
    earlierRuns,
    audits,
    pendingActivities,
    pendingApproval: pendingApproval.value,
    heldTool: heldTool.value,
    waitingUnavailable: pendingApproval.unavailable ?? heldTool.unavailable ?? null,
    temporalUiUrl: ui
      ? `${ui.url.replace(/\/$/, '')}/namespaces/${encodeURIComponent(ui.namespace)}/workflows/${workflowId}`
      : null,
  };
}

/** What a parked turn waits on, or why it cannot be read. */
interface Waiting<T> {
  value: T | null;
  unavailable?: string;
}

const NOTHING: Waiting<never> = { value: null };

/**
 * What the turn waits on, which only its worker can say: without one, the page still shows the turn's story
 * (read from its history) and says why the approval or held call cannot be shown, instead of failing.
 */
async function readable<T>(waiting: Promise<T>): Promise<Waiting<T>> {
  try {
    return { value: await waiting };
  } catch (err) {
    if (err instanceof WorkerUnavailableError) return { value: null, unavailable: err.message };
    throw err;
  }
}
