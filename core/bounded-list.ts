/**
 * Appends `item` and drops the oldest entries beyond `limit`, so a log kept by a long-running process
 * holds its latest `limit` entries instead of one per call for ever. `limit` undefined keeps everything.
 */
export function pushKeepingLatest<T>(list: T[], item: T, limit: number | undefined): void {
  list.push(item);
  if (limit !== undefined && list.length > limit) list.splice(0, list.length - limit);
}
