import { schemaStatus } from '../../core/schema/completeness';
import { resolvedSchemaRow } from '../../core/schema/subset';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/** Recomputes the schema facts after rules may have changed the context; transitions are left to rules. */
export async function autoAdvance(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  const schema = resolvedSchemaRow(ctx.snapshot, session);
  if (!schema) {
    ctx.scope.audit('AUTO_ADVANCE_SKIPPED_NO_SCHEMA', { intent: session.intent, state: session.state });
    return ctx.scope.output();
  }
  const status = schemaStatus(schema.jsonSchema, session.context);
  session.schemaComplete = status.complete;
  session.hasAnySchemaValue = status.hasAnyValue;
  ctx.scope.audit('AUTO_ADVANCE_FACTS', {
    schemaId: schema.schemaId,
    schemaComplete: status.complete,
    hasAnySchemaValue: status.hasAnyValue,
    missingRequiredFields: status.missingFields,
    intent: session.intent,
    state: session.state,
  });
  return ctx.scope.output();
}
