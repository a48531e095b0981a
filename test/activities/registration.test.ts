import { createActivities, type ActivityDeps } from '../../activities';
import { STEP_NAMES } from '../../core/turn/steps';

describe('worker registration and the step table', () => {
  it('registers exactly the activities of the step table, each once', () => {
    // Building the activity functions does no I/O; nothing here is called.
    const activities = createActivities({} as ActivityDeps);
    expect(Object.keys(activities).sort()).toEqual([...STEP_NAMES].sort());
  });
});
