export {
  activityEntries,
  decisionLog,
  isHandedOver,
  stepRuns,
  upsertedSearchAttributes,
  type ActivityEntry,
} from '../../cli/history/entries';
