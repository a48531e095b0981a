import { readFileSync } from 'node:fs';
import { REFERENCE_PATH, withReferenceBlocks } from '../../../scripts/reference/blocks';

describe('docs/config-reference.md (issue 14 item 8)', () => {
  it('has every generated block as the code says (run `npm run docs:reference` after changing tables, enums, stages, context paths or call kinds)', () => {
    const doc = readFileSync(REFERENCE_PATH, 'utf8');
    expect(withReferenceBlocks(doc)).toBe(doc);
  });

  it('documents the things an author needs without reading code', () => {
    const doc = readFileSync(REFERENCE_PATH, 'utf8');
    for (const heading of [
      '## Tables',
      '## Scope: intent_code, state_code and ANY',
      '## Rules',
      '## Context paths the engine writes',
      '## Input parameters',
      '## Audit stages',
      '## Turn outcomes and HTTP statuses',
      '## LLM call kinds',
      '## Responses',
    ]) {
      expect(doc).toContain(heading);
    }
    for (const phase of ['POST_DIALOGUE_ACT', 'POST_CLASSIFIER_INTENT', 'PRE_RESPONSE_RESOLUTION']) {
      expect(doc).toMatch(new RegExp(`### Example: ${phase}`));
    }
  });
});
