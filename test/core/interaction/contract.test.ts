import { allowsCapability, interactionTemplate, parseInteractionMode } from '../../../core/interaction/contract';
import { snapshotOf, templateRow } from '../../support/config-rows';

const t = (interactionMode: string | null, interactionContract: unknown = null) =>
  templateRow({
    intentCode: 'I',
    stateCode: 'S',
    outputFormat: 'TEXT',
    interactionMode,
    interactionContract: interactionContract as never,
  });

describe('interaction_mode defaults vs contract (scenario 28)', () => {
  it.each([
    ['CONFIRM', null, { affirm: true, edit: true, retry: false }],
    ['review', null, { affirm: false, edit: true, retry: false }],
    ['ERROR', null, { affirm: false, edit: false, retry: true }],
    ['PROCESSING', null, { affirm: false, edit: false, retry: true }],
    ['CONFIRM', { allows: ['affirm'] }, { affirm: true, edit: false, retry: false }],
    ['CONFIRM', '{"allows":["EDIT"]}', { affirm: false, edit: true, retry: false }],
    ['FOO', null, { affirm: false, edit: false, retry: false }],
  ])('mode %s contract %j', (mode, contract, expected) => {
    const row = t(mode, contract);
    expect({
      affirm: allowsCapability(row, 'affirm'),
      edit: allowsCapability(row, 'edit'),
      retry: allowsCapability(row, 'retry'),
    }).toEqual(expected);
  });

  it('unknown or blank modes are NORMAL', () => {
    expect(parseInteractionMode('foo')).toBe('NORMAL');
    expect(parseInteractionMode(null)).toBe('NORMAL');
    expect(parseInteractionMode(' confirm ')).toBe('CONFIRM');
  });

  it('prefers intent+state over ANY, ignores output_format and templates without interaction semantics', () => {
    const rows = [
      templateRow({
        templateId: 1,
        intentCode: 'I',
        stateCode: 'ANY',
        outputFormat: 'TEXT',
        interactionMode: 'REVIEW',
      }),
      templateRow({
        templateId: 2,
        intentCode: 'I',
        stateCode: 'S',
        outputFormat: 'SCHEMA_JSON',
        interactionMode: 'CONFIRM',
      }),
      templateRow({
        templateId: 3,
        intentCode: 'I',
        stateCode: 'S',
        outputFormat: 'TEXT',
        createdAt: '2030-01-01T00:00:00Z',
      }),
    ];
    expect(interactionTemplate(snapshotOf({ promptTemplates: rows }), 'I', 'S')?.templateId).toBe(2);
    expect(interactionTemplate(snapshotOf({ promptTemplates: rows }), 'I', 'T')?.templateId).toBe(1);
  });
});
