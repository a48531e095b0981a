import { temporal } from '@temporalio/proto';

const HistoryType = temporal.api.history.v1.History;

/**
 * A history as JSON, for replay fixtures and for operators reproducing a turn locally.
 * `historyToJSON` / `historyFromJSON` of @temporalio/common 1.24.0 throw "type must be a Type" when
 * two protobufjs copies are installed, so this uses protobufjs' own JSON mapping.
 */
export function exportHistory(history: temporal.api.history.v1.IHistory): string {
  const message = HistoryType.fromObject(history);
  return JSON.stringify(HistoryType.toObject(message, { longs: String, enums: String, bytes: String, json: true }));
}

export function importHistory(json: string): temporal.api.history.v1.History {
  return HistoryType.fromObject(JSON.parse(json) as Record<string, unknown>);
}
