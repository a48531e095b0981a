export {
  activityEntries,
  decisionLog,
  decodePayload,
  isHandedOver,
  stepRuns,
  upsertedSearchAttributes,
  type ActivityEntry,
} from '../../api/history/entries';
