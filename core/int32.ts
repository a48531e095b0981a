/**
 * The largest 32-bit signed integer, and three limits at once: a PostgreSQL `integer` column, Java's int (the reference
 * engine reads ce_config's int keys as one), and the longest delay a timer takes (past it Node's setTimeout fires at
 * once, and a bigger APPROVAL_TIMEOUT_MS once made an invalid Date in the workflow, failing its every task).
 */
export const INT32_MAX = 2_147_483_647;
