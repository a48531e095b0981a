export {
  activityEntries,
  decisionLog,
  isHandedOver,
  stepRuns,
  upsertedSearchAttributes,
  type ActivityEntry,
} from '../../api/history/entries';
