import { validateConfig } from '../../../../core/config/validate';
import { formatViolation } from '../../../../core/config/types';
import { rule } from '../../../../db/seed/builders';
import { validBaseConfig } from '../../../support/config-fixtures';

describe('validateConfig: tasks named in rows (core/config/validation/task-checks.ts)', () => {
  it('warns of each task a row names: tasks are registered in code, which validation cannot see', () => {
    const rows = validBaseConfig();
    rows.rules.push(
      rule({
        ruleId: 40,
        intentCode: 'FAQ',
        stateCode: 'IDLE',
        ruleType: 'REGEX',
        matchPattern: '.*',
        action: 'SET_TASK',
        actionValue: 'auditTask:one,two',
      })
    );
    rows.pendingActions.push({
      pendingActionId: 5,
      intentCode: 'FAQ',
      stateCode: 'IDLE',
      actionKey: 'hold',
      beanName: 'holdTask',
      methodNames: 'cancel',
      priority: 1,
      description: null,
      enabled: true,
    });
    const result = validateConfig(rows);
    expect(result.violations).toEqual([]);
    const [ruleWarning, actionWarning] = result.warnings.map(formatViolation);
    expect(ruleWarning).toMatch(
      /^ce_rule\[40\]: runs task auditTask\.one, auditTask\.two, which is registered in code, not config: .*`convengine start` and `convengine worker` register no tasks.*, or the rule audits each method as MISSING and does nothing$/
    );
    expect(actionWarning).toMatch(
      /^ce_pending_action\[5\]: runs task holdTask\.cancel, .* or executing the action fails with PENDING_ACTION_FAILED$/
    );
    expect(result.warnings).toHaveLength(2);
  });
});
