/**
 * A step run's result claim-checked (CLAIM_CHECK_THRESHOLD_BYTES at its minimum, 1024): history holds a
 * reference, and the console's timeline and `convengine history` read the run back from ce_payload_claim,
 * so they list each step as they do for a small run. Committed histories, claim-checked by the real codec.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporalInspector } from '../../api/console/temporal-inspector';
import type { temporal } from '@temporalio/proto';
import { activityEntries } from '../../api/history/entries';
import { hasStepRunClaims, resolveStepRunClaims } from '../../api/history/step-run-claims';
import { turnStory } from '../../api/history/turn-story';
import { importHistory } from '../../cli/history/json';
import { formatTimeline } from '../../cli/history/timeline';
import { ClaimCheckCodec, ClaimCheckError } from '../../db/claims/codec';
import type { ClaimBody, ClaimStore } from '../../db/claims/store';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const HISTORIES = join(__dirname, '..', 'replay', 'histories', 'v2-wide-step-runs');

function memoryClaimStore(): ClaimStore & { bodies: Map<string, Uint8Array> } {
  const bodies = new Map<string, Uint8Array>();
  return {
    bodies,
    async putMany(stored: readonly ClaimBody[]) {
      for (const { hash, body } of stored) bodies.set(hash, body);
    },
    async getMany(hashes: readonly string[]) {
      return new Map(hashes.flatMap((h) => (bodies.has(h) ? [[h, bodies.get(h) as Uint8Array] as const] : [])));
    },
    async prune() {
      return { claims: 0, bytes: 0 };
    },
  };
}

const load = (fixture: string): HistoryEvent[] =>
  importHistory(readFileSync(join(HISTORIES, fixture), 'utf8')).events as HistoryEvent[];

/** The history as a worker with `codec` would have written it: every result and failure detail through it. */
async function claimChecked(events: HistoryEvent[], codec: ClaimCheckCodec): Promise<HistoryEvent[]> {
  const copy = load(FIXTURE);
  const lists = copy.flatMap((e) => [
    e.activityTaskCompletedEventAttributes?.result?.payloads,
    e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.details?.payloads,
    e.markerRecordedEventAttributes?.details?.['result']?.payloads,
    e.markerRecordedEventAttributes?.failure?.applicationFailureInfo?.details?.payloads,
  ]);
  for (const list of lists) {
    if (!list?.length) continue;
    const encoded = await codec.encode(list as Payload[]);
    list.splice(0, list.length, ...(encoded as temporal.api.common.v1.IPayload[]));
  }
  expect(copy).toHaveLength(events.length);
  return copy;
}

const FIXTURE = 'move-connections-turn1.json';

describe('step runs whose results are claim-checked', () => {
  const store = memoryClaimStore();
  const codec = new ClaimCheckCodec(store, 1024);
  let plain: HistoryEvent[];
  let checked: HistoryEvent[];

  beforeEach(async () => {
    plain = load(FIXTURE);
    checked = await claimChecked(plain, codec);
  });

  it('hold references in history, and show each run as one row until resolved', () => {
    expect(store.bodies.size).toBeGreaterThan(0);
    expect(hasStepRunClaims(checked)).toBe(true);
    expect(hasStepRunClaims(plain)).toBe(false);
    expect(activityEntries(checked).length).toBeLessThan(activityEntries(plain).length);
  });

  it('are read back from the claim store: the same steps, timeline and story as a small run', async () => {
    expect(await resolveStepRunClaims(checked, [codec])).toBeNull();
    // Other activities' large results (an McpPlan's session) stay references: only step runs name steps.
    const steps = (events: HistoryEvent[]) =>
      activityEntries(events).map(({ type, outcome, summary, inRun, startedAt }) => ({
        type,
        outcome,
        summary,
        inRun,
        startedAt,
      }));
    expect(steps(checked)).toEqual(steps(plain));
    expect(formatTimeline('turn-x-1', checked)).toEqual(formatTimeline('turn-x-1', plain));
    expect(turnStory(checked).timeline).toEqual(turnStory(plain).timeline);
    expect(formatTimeline('turn-x-1', checked)).toEqual(
      expect.arrayContaining([expect.stringMatching(/ ResponseResolution \(local, in a step run\) {2}→ COMPLETED$/)])
    );
  });

  it("are resolved by the console's inspector through its client's codecs", async () => {
    const client = {
      options: { namespace: 'ns', loadedDataConverter: { payloadCodecs: [codec] } },
      workflow: {
        getHandle: () => ({
          describe: async () => ({ runId: 'run-1', taskQueue: 'convengine-turns' }),
          fetchHistory: async () => ({ events: checked }),
        }),
      },
    } as unknown as Client;
    const events = (await temporalInspector(client, 'convengine-turns').history('turn-x-1'))?.events ?? [];
    expect(hasStepRunClaims(events)).toBe(false);
    expect(formatTimeline('turn-x-1', events)).toEqual(formatTimeline('turn-x-1', plain));
  });

  it('stay one row each, with the reason, when a claim is gone', async () => {
    const gone = new ClaimCheckCodec(memoryClaimStore(), 1024);
    const unresolved = await resolveStepRunClaims(checked, [gone]);
    expect(unresolved?.failure).toBeInstanceOf(ClaimCheckError);
    expect((unresolved?.failure as Error).message).toMatch(/is not in ce_payload_claim/);
    expect(hasStepRunClaims(checked)).toBe(true);
  });
});
