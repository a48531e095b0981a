import { validateConfig } from '../../core/config/validate';
import { formatViolation } from '../../core/config/types';
import { compileUserRegex, matchesFind } from '../../core/text/regex';
import { mergeConfigRows, packConfigRows, SEED_PACKS, SeedConflictError } from '../../db/seed';
import { loanConfirmationPack } from '../../db/seed/packs';
import { response } from '../../db/seed/builders';

/** Pure checks of the bundled packs (no database): they validate and their classifiers do not collide. */
describe('bundled seed packs', () => {
  it.each([...SEED_PACKS.map((p) => [p.name, [p]] as const), ['all together', SEED_PACKS] as const])(
    '%s validate(s) with no violations or warnings',
    (_name, packs) => {
      const result = validateConfig(packConfigRows(packs));
      expect(result.violations.map(formatViolation)).toEqual([]);
      expect(result.warnings.map(formatViolation)).toEqual([]);
    }
  );

  const combined = packConfigRows(SEED_PACKS);
  const expectedIntent: Record<string, (string | null)[]> = {
    faq: ['GREETING', 'FAQ'],
    'move-connections': ['MOVE_CONNECTIONS', 'MOVE_CONNECTIONS', 'MOVE_CONNECTIONS'],
    'loan-confirmation': ['LOAN_APPLICATION', null, null],
    'order-diagnostics': ['ORDER_DIAGNOSTICS', 'ORDER_DIAGNOSTICS'],
    'zapper-semantic': [
      'GREETING',
      'SEMANTIC_QUERY',
      'SEMANTIC_QUERY',
      'SEMANTIC_QUERY',
      'SEMANTIC_QUERY',
      'SEMANTIC_QUERY',
    ],
  };
  it.each(
    SEED_PACKS.flatMap((p) => p.utterances.map((u, i) => [p.name, u, expectedIntent[p.name]?.[i] ?? null] as const))
  )('%s: "%s" is classified as %s by the combined config, and by nothing else', (_pack, utterance, intent) => {
    const matched = combined.classifiers
      .filter((c) => c.enabled && matchesFind(compileUserRegex(c.pattern, { ignoreCase: true }), utterance))
      .map((c) => c.intentCode);
    // Several rows of one intent are one match (classifyIntent); only another intent would collide.
    expect([...new Set(matched)]).toEqual(intent === null ? [] : [intent]);
  });

  // 136/228 (CLOSED: a message after the application was processed), 137–140/229 (an acknowledgement of the
  // processed application), 141 (a blocked submit goes back to CONFIRMATION) and 142–145/230–231 (a submit refused its
  // approval says so) come after the documented ids.
  it('keeps the documented Example 3 ids', () => {
    const rows = loanConfirmationPack.rows;
    expect(rows.classifiers?.map((r) => r.classifierId)).toContain(108);
    expect(rows.outputSchemas?.map((r) => r.schemaId)).toEqual([109]);
    expect(rows.promptTemplates?.map((r) => r.templateId).sort()).toEqual([122, 123, 124, 125, 126, 127]);
    expect(
      rows.rules
        ?.map((r) => r.ruleId)
        .filter((id) => id > 100)
        .sort()
    ).toEqual([128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145]);
    expect(
      rows.responses
        ?.map((r) => r.responseId)
        .filter((id) => id > 100)
        .sort()
    ).toEqual([223, 224, 225, 226, 227, 228, 229, 230, 231]);
    expect(rows.mcpPlanners?.map((r) => r.plannerId)).toEqual([6202]);
    expect(rows.mcpTools?.map((r) => [r.toolId, r.toolCode, r.sideEffect])).toEqual([
      [10201, 'loan.credit.rating.check', 'READ_ONLY'],
      [10202, 'loan.credit.fraud.check', 'READ_ONLY'],
      [10203, 'loan.debt.credit.summary', 'READ_ONLY'],
      [10204, 'loan.application.submit', 'IDEMPOTENT_WRITE'],
    ]);
    const plannerPrompt = rows.mcpPlanners?.[0]?.systemPrompt ?? '';
    const order = [
      'loan.credit.rating.check',
      'loan.credit.fraud.check',
      'loan.debt.credit.summary',
      'loan.application.submit',
    ];
    const positions = order.map((code) => plannerPrompt.indexOf(`\`${code}\``));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
  });

  it('refuses to merge two different definitions of the same row', () => {
    const a = {
      responses: [
        response({ responseId: 1, intentCode: 'GREETING', stateCode: 'IDLE', responseType: 'EXACT', exactText: 'Hi' }),
      ],
    };
    const b = {
      responses: [
        response({
          responseId: 1,
          intentCode: 'GREETING',
          stateCode: 'IDLE',
          responseType: 'EXACT',
          exactText: 'Hello',
        }),
      ],
    };
    expect(() => mergeConfigRows([a, b])).toThrow(SeedConflictError);
    expect(mergeConfigRows([a, a]).responses).toHaveLength(1);
  });
});
