/** `convengine start`'s HTTP tools part (cli/stack/parts.ts) decides from the parsed environment only. */
import { toolsPart } from '../../cli/stack/parts';
import { loadEnv } from '../../config/env';

describe('toolsPart', () => {
  it("starts no demo tool server when CONVENGINE_TOOL_DEMO_URL names one (a missing key is the worker's to warn of)", async () => {
    const part = await toolsPart(loadEnv({ CONVENGINE_TOOL_DEMO_URL: 'http://tools.internal:8080' }));
    expect(part).toMatchObject({ value: {}, embedded: null });
  });

  it('starts the demo one when the parsed environment names none, whatever process.env holds', async () => {
    const saved = process.env['CONVENGINE_TOOL_DEMO_URL'];
    process.env['CONVENGINE_TOOL_DEMO_URL'] = 'http://tools.internal:8080';
    try {
      const part = await toolsPart(loadEnv({}));
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
