/** `convengine worker` without TEMPORAL_ADDRESS: one line and exit 2, as `convengine api`, not a fatal log with a stack. */
import { runConvengine } from '../support/run-cli';

describe('convengine worker', () => {
  it('says TEMPORAL_ADDRESS is not set, in one line, and exits 2', async () => {
    const run = await runConvengine(['worker'], { TEMPORAL_ADDRESS: '', DATABASE_URL: '' }, 30_000);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'TEMPORAL_ADDRESS is not set (use `convengine start` for the embedded dev server).\n',
    });
  });
});
