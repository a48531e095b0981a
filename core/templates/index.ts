export {
  TEMPLATE_MALFORMED,
  authoredVariableParts,
  checkTemplate,
  extractTemplateVariables,
  parseAuthoredTemplate,
  parseTemplate,
  parseVariablePath,
  placeholderIn,
  templateVariableRefs,
  type TemplatePart,
  type TemplateSyntax,
  type TemplateVariablePart,
  type VariablePath,
} from './syntax';
export {
  formatTemplateValue,
  PROMPT_VALUE_MAX_CHARS,
  renderPrompt,
  renderTemplate,
  renderTemplateLenient,
  resolveVariablePath,
  type LenientRender,
  type TemplateVariables,
} from './render';
export { jsonTemplateSkeleton, renderJsonTemplateLenient } from './json-render';
export {
  KNOWN_TEMPLATE_ROOTS,
  RESPONSE_METADATA_NAMES,
  SESSION_FACT_NAMES,
  STEP_VARIABLE_ALIASES,
  SYSTEM_INPUT_PARAM_NAMES,
  TEMPLATE_ROOT_OBJECTS,
  canonicalTemplateVariable,
  isKnownTemplateRoot,
  templateVariableAliases,
} from './catalog';
