import { DefaultFailureConverter } from '@temporalio/common';

/**
 * The failure converter of the workflow bundle, the worker's activities and every client (db/data-converter.ts names
 * this module as `failureConverterPath`). A failure's message and stack trace can carry user text (a tool's error, a
 * validation message quoting the input), and Temporal stores them as plain fields: this moves them into the failure's
 * `encodedAttributes` payload, which the payload codecs then encrypt under PAYLOAD_ENCRYPTION_KEYS. The field then reads
 * "Encoded failure"; the SDK restores both when it reads a failure, and so do the history readers
 * (api/history/decoded-history.ts). It is on with or without keys: a bundle is built before the keys are known, and
 * one built without it would leak a workflow's failures once keys were set.
 */
// Off for now: on, `temporal workflow show` (the runbook's read-history) prints only "Encoded failure" for every
// failure, with or without keys, since the bundle cannot tell which. The readers below decode either form.
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: false });
