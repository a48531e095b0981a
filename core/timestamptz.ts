/**
 * The instants the engine can hand PostgreSQL as a timestamptz: years 0001 to 9999 in UTC. A Date goes to the
 * database as its ISO text (toISOString, drizzle's timestamp columns), which names year 0 "0000", a year PostgreSQL
 * lacks ("date/time field value out of range"), and a year past 9999 "+010000", which it cannot read ("time zone
 * displacement out of range").
 */
export const TIMESTAMPTZ_RANGE = 'from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z';

/** Whether `at` is an instant in TIMESTAMPTZ_RANGE; an invalid Date is none. */
export function inTimestamptzRange(at: Date): boolean {
  const year = at.getUTCFullYear();
  return year >= 1 && year <= 9999;
}
