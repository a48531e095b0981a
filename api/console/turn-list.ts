import type { HistoryEntryView } from '../ports';
import type { ConsolePorts, TurnSummary } from './ports';
import { earlierRunView, saidInRun } from './turn-runs';

/**
 * A page of turns with what was said in each: the committed history's text; else (running, parked, failed, or older
 * than the history keeps) the turn's own run's USER_INPUT row, read for the whole page at once with every earlier
 * run's, so a failed message a later message took the number of stays listed (superseded); else what the run was
 * started with, read only for the turns left without (a run before its USER_INPUT row is written, or under an audit
 * policy that drops those rows), so the list shows a turn's message from its start.
 */
export async function turnsWithWhatWasSaid(
  consolePorts: ConsolePorts,
  conversationId: string,
  page: readonly TurnSummary[],
  history: readonly HistoryEntryView[]
) {
  const committed = new Map(history.map((h) => [h.turnNumber, h]));
  const inputs = await consolePorts.userInputs(
    conversationId,
    page.map((t) => t.turnNumber)
  );
  const known = (t: TurnSummary) =>
    committed.get(t.turnNumber)?.userInput ?? saidInRun(inputs.get(t.turnNumber) ?? [], t.runId);
  const unknown = page.filter((t) => known(t) === null);
  const started = unknown.length > 0 ? await consolePorts.inspector.startMessages(unknown) : new Map<string, string>();
  return page.map((t) => {
    const userInput = known(t) ?? started.get(t.runId) ?? null;
    const earlierRuns = t.earlierRuns.map((run) => ({
      ...run,
      ...earlierRunView(run.runId, inputs.get(t.turnNumber) ?? [], userInput),
    }));
    return { ...t, userInput, assistantOutput: committed.get(t.turnNumber)?.assistantOutput ?? null, earlierRuns };
  });
}
