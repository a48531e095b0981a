export { activityEntries, decisionLog, upsertedSearchAttributes, type ActivityEntry } from '../../api/history/entries';
