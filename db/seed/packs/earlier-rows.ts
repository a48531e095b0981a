import type { ConfigRows } from '../../../core/config/types';

/**
 * A pack row that has changed since a pack version shipped it: each entry of `shipped` is an earlier version, as the
 * columns in which it differs from today's row. A database seeded with an earlier version still holds that row (the
 * seeder inserts missing rows only), so the seeder brings it up to date when it still equals one of these, and keeps
 * it when it does not: then an author edited it (db/seed/upgrade.ts). Before a rollback, `convengine seed
 * --restore-earlier` puts such a row back as the database served it before (db/seed/restore-earlier.ts).
 *
 * When you change a shipped row, add what it was here (only the columns you changed); a row added to a pack needs
 * nothing, since the seeder inserts it.
 */
export interface EarlierPackRow {
  table: keyof ConfigRows;
  id: number;
  shipped: readonly Readonly<Record<string, unknown>>[];
}

/** Every HTTP tool of the first packs had no input schema (issue #21 gave them one; migration 0011 added the column). */
const WITHOUT_INPUT_SCHEMA = [5001, 5002, 10201, 10202, 10203, 10204].map((id): EarlierPackRow => ({
  table: 'mcpHttpTools',
  id,
  shipped: [{ inputSchema: null }],
}));

export const EARLIER_PACK_ROWS: readonly EarlierPackRow[] = [
  // The fallback reply did not yet list what the demo understands (issue 14 item 9).
  {
    table: 'responses',
    id: 2,
    shipped: [{ exactText: 'Sorry, I did not understand that. Can you rephrase?', description: 'Fallback reply.' }],
  },
  // Without this turn's answer the reply rendered blank; now it asks which connection (seed "stale move ID bug").
  {
    table: 'responses',
    id: 20,
    shipped: [{ exactText: '[[${context.mcp.finalAnswer}]]', description: "The planner's final answer, verbatim." }],
  },
  // A delete in plain words was not routed to the read-only chain.
  {
    table: 'classifiers',
    id: 70,
    shipped: [
      {
        pattern:
          '(?i)^\\s*/sql2\\b|\\b(show|list)\\b.*\\b(disconnect|billbank|zp_\\w+)|\\bwhy\\b.*\\brequest\\s+ZPR\\d+|' +
          '\\bdelete\\s+from\\s+zp_\\w+',
        description: '/sql2 commands and show/list/why/delete questions about zapper disconnect data.',
      },
    ],
  },
  // The confirmation did not yet say that a correction was refused (CORRECTION_STEP_CORRECTION_PATCH_REJECTED).
  {
    table: 'promptTemplates',
    id: 125,
    shipped: [
      {
        systemPrompt:
          'Ask the user to confirm the loan details with exactly this sentence: ' +
          '"Please confirm: customerId <id>, requestedAmount <amount>, tenureMonths <months>. Proceed?" ' +
          'If a value was just corrected, start with "Updated. ".',
        userPrompt:
          'customerId {{context.customerId}}, requestedAmount {{context.requestedAmount}}, tenureMonths {{context.tenureMonths}}.\n' +
          'Correction applied this turn: {{correction_applied}}\nUser message: {{user_input}}',
      },
    ],
  },
  // A rejected or expired approval of the submit (lifecycle.blocked, error false) moved the turn to COMPLETED, then
  // CLOSED ("already been processed"), though nothing was submitted.
  {
    table: 'rules',
    id: 133,
    shipped: [
      {
        matchPattern:
          "$[?(@.context.mcp.lifecycle.finished == true && @.context.mcp.lifecycle.error == false && @.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]",
        description: 'The planner finished without error and answered.',
      },
    ],
  },
  ...WITHOUT_INPUT_SCHEMA,
];
