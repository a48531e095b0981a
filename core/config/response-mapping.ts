import { isJsonObject, type Json } from '../json';
import { checkJsonPath } from '../rules/jsonpath';
import { HTTP_MAPPING_KINDS, oneOf } from './vocabulary';

/**
 * How an HTTP tool turns the response body into `mapped` (ce_mcp_http_tool.response_mapping_kind
 * + response_mapping):
 * - RAW_JSON: the parsed body (non-JSON text becomes `{text}`); response_mapping must be null.
 * - TEXT: the raw body text; response_mapping must be null.
 * - JSON_PATH: the first match of one path: `"$.data"` or `{"path": "$.data"}`.
 * - FIELD_TEMPLATE: an object of field → path, e.g. `{"orderId": "$.orderId", "status": "$.status"}`.
 */
export type ResponseMappingSpec =
  | { kind: 'RAW_JSON' }
  | { kind: 'TEXT' }
  | { kind: 'JSON_PATH'; path: string }
  | { kind: 'FIELD_TEMPLATE'; fields: Record<string, string> };

/** Parses the stored pair; returns a human reason string when it is not usable. */
export function parseResponseMapping(kind: string, mapping: Json | null): ResponseMappingSpec | string {
  const canonical = oneOf(HTTP_MAPPING_KINDS, kind);
  if (canonical === null) {
    return `response_mapping_kind "${kind}" is not one of ${HTTP_MAPPING_KINDS.join(', ')}`;
  }
  switch (canonical) {
    case 'RAW_JSON':
    case 'TEXT':
      return mapping === null ? { kind: canonical } : `response_mapping must be null for ${canonical}`;
    case 'JSON_PATH':
      return parseJsonPathMapping(mapping);
    case 'FIELD_TEMPLATE':
      return parseFieldTemplate(mapping);
  }
}

function parseJsonPathMapping(mapping: Json | null): ResponseMappingSpec | string {
  const path = typeof mapping === 'string' ? mapping : isJsonObject(mapping) ? mapping.path : undefined;
  if (typeof path !== 'string' || path.trim() === '') {
    return 'JSON_PATH response_mapping must be a JSONPath string or {"path": "<JSONPath>"}';
  }
  const reason = checkJsonPath(path);
  return reason === null ? { kind: 'JSON_PATH', path } : `response_mapping: ${reason}`;
}

function parseFieldTemplate(mapping: Json | null): ResponseMappingSpec | string {
  if (!isJsonObject(mapping) || Object.keys(mapping).length === 0) {
    return 'FIELD_TEMPLATE response_mapping must be a non-empty object of field name → JSONPath';
  }
  const fields: Record<string, string> = {};
  for (const [field, path] of Object.entries(mapping)) {
    if (typeof path !== 'string') return `response_mapping field "${field}" must be a JSONPath string`;
    const reason = checkJsonPath(path);
    if (reason !== null) return `response_mapping field "${field}": ${reason}`;
    fields[field] = path;
  }
  return { kind: 'FIELD_TEMPLATE', fields };
}
