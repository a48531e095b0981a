export { activityEntries, upsertedSearchAttributes, type ActivityEntry } from '../../cli/history/entries';
