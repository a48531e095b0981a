/**
 * The journal writes a run's snapshot at every transition. A pending activity's input is already in the journal
 * (its ActivityTaskScheduled event), so the snapshots leave it out and a restart takes it from the event: on
 * turn-shaped runs the repeated inputs were 40 % of what the journal appended.
 */
import * as fs from 'node:fs';
import { scheduleActivity } from '../../devserver/engine/activity-commands';
import { PersistentStore } from '../../devserver/engine/persistence';
import { createTestRun, withJournal } from './engine-fixture';

test('run snapshots leave a pending activity input out, and a restart gives it back from the scheduled event', () => {
  withJournal((engine, store, file) => {
    const data = Buffer.from('a pending activity input '.repeat(100));
    const header = {
      fields: { trace: { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"t"') } },
    };
    const run = engine.transact(() => {
      const created = createTestRun(engine, 'with-activity');
      scheduleActivity(
        engine,
        created,
        {
          activityId: '1',
          activityType: { name: 'echo' },
          startToCloseTimeout: { seconds: 10 },
          header,
          input: { payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data }] },
        },
        0
      );
      return created;
    });
    store.flush();

    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    const snapshots = lines.filter((line) => line.startsWith('{"t":"run"'));
    expect(snapshots.length).toBeGreaterThan(0);
    expect(snapshots.some((line) => line.includes(data.toString('base64').slice(0, 40)))).toBe(false);

    const [loaded] = new PersistentStore(file, 'default', () => undefined).load().runs;
    const activity = Object.values(loaded?.activities ?? {})[0];
    const original = Object.values(run.activities)[0];
    expect(activity?.activityType).toBe('echo');
    expect(Buffer.from(activity?.input?.payloads?.[0]?.data ?? [])).toEqual(data);
    expect(activity?.input).toEqual(original?.input);
    expect(activity?.header).toEqual(original?.header);
  });
});
