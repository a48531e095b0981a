import { AuditStage } from '../../core/audit/payloads';
import { readStageRows } from '../../core/audit/read';
import type { TurnAuditRow } from './ports';

/** What the user said in one run of a turn: its USER_INPUT row's text and the run that wrote it. */
export interface RunInput {
  runId: string | null;
  text: string;
}

/**
 * An earlier run of a turn, before the run the turn ended with (or runs as). A turn that fails commits nothing, so
 * its number is taken again by the next message: a run whose message differs from the final run's is a failed
 * message that was `superseded`, not a run of the same message again (an operator's retry, a reset).
 */
export interface EarlierRunView {
  runId: string;
  /** What the user said in that run; null when the run failed before its USER_INPUT row. */
  userInput: string | null;
  superseded: boolean;
}

/** The USER_INPUT rows of a turn's rows, oldest first, each with its run. */
function runInputsOf(rows: readonly TurnAuditRow[]): RunInput[] {
  return readStageRows(rows, AuditStage.UserInput).map((input) => ({
    runId: input.row.runId,
    text: input.payload.text,
  }));
}

/** What the user said in `runId`: its own USER_INPUT row, else (rows of no run: in process, before 0016) the last. */
export function saidInRun(inputs: readonly RunInput[], runId: string | null): string | null {
  const own = inputs.filter((input) => input.runId === runId).at(-1);
  return (own ?? inputs.filter((input) => input.runId === null).at(-1))?.text ?? null;
}

/** An earlier run as the console shows it: superseded when it said something else than the final run did. */
export function earlierRunView(runId: string, inputs: readonly RunInput[], finalText: string | null): EarlierRunView {
  const userInput = inputs.filter((input) => input.runId === runId).at(-1)?.text ?? null;
  return { runId, userInput, superseded: userInput !== null && finalText !== null && userInput !== finalText };
}

/**
 * The runs of one turn from its audit rows: the final run is the workflow's latest (`finalRunId`), also before it wrote
 * a row of its own, when the last rows are still a failed run's; every other run that wrote rows is an earlier one,
 * oldest first. What the user said is the committed text when the turn committed, else the final run's own
 * USER_INPUT (never an earlier run's), else what the final run was started with (`said.started`, its workflow input:
 * known from the start, before that row is written).
 */
export function runsOfTurn(
  rows: readonly TurnAuditRow[],
  finalRunId: string,
  said: { committed: string | null; started: string | null }
): { userInput: string | null; earlierRuns: EarlierRunView[] } {
  const inputs = runInputsOf(rows);
  const userInput = said.committed ?? saidInRun(inputs, finalRunId) ?? said.started;
  const earlier = [...new Set(rows.map((row) => row.runId))].filter(
    (runId): runId is string => runId !== null && runId !== finalRunId
  );
  return { userInput, earlierRuns: earlier.map((runId) => earlierRunView(runId, inputs, userInput)) };
}
