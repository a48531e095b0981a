// The real module by its `.js` name, which the bundle's alias of `turn-versions` (workflowBundleBeforeParkedMemo) does
// not match: webpack resolves it to the .ts source (the SDK's extensionAlias).
import * as current from '../../../workflows/turn-versions.js';

export * from '../../../workflows/turn-versions.js';

/**
 * The turn's versions as a worker of a build before PARKED_MEMO_PATCH ran them: it never asked the patch, and parked
 * turns recorded no ParkedCall memo.
 */
const beforeParkedMemo = (versions: current.TurnVersions): current.TurnVersions => ({
  ...versions,
  parkedMemo: () => false,
});

export const PATCHED_VERSIONS = beforeParkedMemo(current.PATCHED_VERSIONS);
export const CURRENT_VERSIONS = beforeParkedMemo(current.CURRENT_VERSIONS);
