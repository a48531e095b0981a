export { activityEntries, decisionLog, upsertedSearchAttributes, type ActivityEntry } from '../../cli/history/entries';
