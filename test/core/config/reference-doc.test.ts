import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loanConfirmationPack } from '../../../db/seed/packs/loan-confirmation';
import { REFERENCE_PATH, withReferenceBlocks } from '../../../scripts/reference/blocks';

const ROOT = join(__dirname, '..', '..', '..');

/** The `| \`STAGE\` | payload keys |` rows of the "Audit stages" block: stage → keys. */
function auditRows(doc: string): Map<string, string> {
  const block = doc.slice(doc.indexOf('<!-- gen:audit-stages -->'), doc.indexOf('<!-- /gen:audit-stages -->'));
  return new Map(
    [...block.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)].map((m) => [m[1] as string, (m[2] as string).trim()])
  );
}

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

  // An outsider found the semantic tools' LLM stages missing: llm.ts built them as `${req.stagePrefix}_LLM_INPUT`.
  it("lists every stage of the semantic tools' LLM calls, with the keys of their payloads", () => {
    const rows = auditRows(readFileSync(REFERENCE_PATH, 'utf8'));
    for (const call of ['SEMANTIC_INTERPRET', 'SEMANTIC_QUERY', 'SEMANTIC_QUERY_RETRY']) {
      expect([`INPUT`, 'OUTPUT', 'ERROR'].map((role) => rows.get(`${call}_LLM_${role}`))).toEqual([
        'source, system_prompt, user_prompt',
        'json',
        'raw, error',
      ]);
    }
  });

  /**
   * `audit(\`…\`, …)`, but for rule evaluation's `${RULE_STAGES.X} (label)` (listed as `X (<label>)`) and the MCP hold's
   * `inputs.audit(…)`, which names an activity input, not a stage.
   */
  const BUILT_STAGE = /(?<!inputs\.)\baudit\(\s*`(?!\$\{RULE_STAGES\.)/;

  it('can list every stage: no code builds a stage name from a template literal, which the generator cannot read', () => {
    const built: string[] = [];
    const scan = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) scan(path);
        else if (entry.name.endsWith('.ts') && BUILT_STAGE.test(readFileSync(path, 'utf8'))) built.push(path);
      }
    };
    for (const dir of ['activities', 'core', 'workflows']) scan(join(ROOT, dir));
    expect(built).toEqual([]);
  });

  it("says how the seed's loan submit is parked for an approval, as the seed has it", () => {
    const doc = readFileSync(REFERENCE_PATH, 'utf8').replace(/\s+/g, ' ');
    const submit = loanConfirmationPack.rows.mcpTools?.find((t) => t.toolCode === 'loan.application.submit');
    // The seeded submit runs at once: the reference must not say it waits for an approval, and says how to make it.
    expect(submit?.requiresApproval).toBe(false);
    expect(doc).not.toContain('with `requires_approval` set on `loan.application.submit`');
    expect(doc).toContain('set `requires_approval: true` on the `loan.application.submit` row');
  });
});
