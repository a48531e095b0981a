/** The stages of a rule phase's audits, in order. */
export const stages = (audits: readonly { stage: string }[]) => audits.map((a) => a.stage);

/** The rule ids of the audits at `stage`, in order. */
export const ruleIds = (audits: readonly { stage: string; payload: Record<string, unknown> }[], stage: string) =>
  audits.filter((a) => a.stage === stage).map((a) => a.payload['ruleId']);
