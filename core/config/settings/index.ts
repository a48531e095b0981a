import type { SettingDefinition } from '../setting';
import { auditSettings } from './audit';
import { pipelineSettings } from './pipeline';
import { mcpSettings } from './mcp';

/** Every declared ce_config tunable; validation checks stored rows against these. */
export const allSettings: readonly SettingDefinition[] = [...pipelineSettings, ...mcpSettings, ...auditSettings];
