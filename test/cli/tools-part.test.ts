/** `convengine start`'s HTTP tools part (cli/stack/parts.ts) decides from the parsed environment only. */
import { MISSING_TOOL_KEY, toolsPart } from '../../cli/stack/parts';
import { loadEnv } from '../../config/env';

describe('toolsPart', () => {
  it('starts no demo tool server when CONVENGINE_TOOL_DEMO_URL names one', async () => {
    const log = jest.fn();
    const part = await toolsPart(
      loadEnv({ CONVENGINE_TOOL_DEMO_URL: 'http://tools.internal:8080', CONVENGINE_TOOL_DEMO_API_KEY: 'k' }),
      log
    );
    expect(part).toMatchObject({ value: {}, embedded: null });
    expect(log).not.toHaveBeenCalled();
  });

  it("says at start that a configured tool server's key is missing: every seed HTTP tool call would fail", async () => {
    const log = jest.fn();
    await toolsPart(loadEnv({ CONVENGINE_TOOL_DEMO_URL: 'http://tools.internal:8080' }), log);
    expect(log).toHaveBeenCalledWith(MISSING_TOOL_KEY);
    expect(MISSING_TOOL_KEY).toContain('CONVENGINE_TOOL_DEMO_API_KEY is not');
  });

  it('starts the demo one when the parsed environment names none, whatever process.env holds', async () => {
    const saved = process.env['CONVENGINE_TOOL_DEMO_URL'];
    process.env['CONVENGINE_TOOL_DEMO_URL'] = 'http://tools.internal:8080';
    try {
      const part = await toolsPart(loadEnv({}), () => undefined);
      try {
        expect(part.value['CONVENGINE_TOOL_DEMO_URL']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(part.embedded).toMatch(/^HTTP tools: demo tool server at /);
      } finally {
        await part.stop();
      }
    } finally {
      if (saved === undefined) delete process.env['CONVENGINE_TOOL_DEMO_URL'];
      else process.env['CONVENGINE_TOOL_DEMO_URL'] = saved;
    }
  });
});
