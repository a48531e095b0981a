import type { ConfigSnapshot } from '../config/types';
import type { JsonObject } from '../json';

/**
 * The semantic metadata (ce_semantic_* rows) as one compact JSON document for the interpret and
 * query prompts: what entities exist, which fields map to which table columns, how tables join,
 * which query classes are allowed, and the business words users say for them.
 */
export function semanticCatalog(snapshot: ConfigSnapshot): JsonObject {
  const r = snapshot.rows;
  return {
    entities: r.semanticEntities
      .filter((e) => e.enabled)
      .map((e) => ({
        entity: e.entityKey,
        table: e.primaryTable,
        relatedTables: e.relatedTables,
        fields: e.fieldsJson,
        synonyms: e.synonyms,
        description: e.description,
      })),
    queryClasses: r.semanticQueryClasses
      .filter((q) => q.enabled)
      .map((q) => ({
        queryClass: q.queryClassKey,
        baseTable: q.baseTableName,
        allowedFilterFields: q.allowedFilterFields,
        defaultSelect: q.defaultSelectFields,
        defaultSort: q.defaultSortFields,
        description: q.description,
      })),
    mappings: r.semanticMappings
      .filter((m) => m.enabled)
      .sort((a, b) => a.priority - b.priority)
      .map((m) => ({
        concept: m.conceptKey,
        entity: m.entityKey,
        field: m.fieldKey,
        table: m.mappedTable,
        column: m.mappedColumn,
        operator: m.operatorType,
        values: m.valueMapJson,
        queryClass: m.queryClassKey,
      })),
    joins: r.semanticJoinPaths
      .filter((j) => j.enabled)
      .sort((a, b) => a.priority - b.priority)
      .map((j) => ({ left: j.leftEntityKey, right: j.rightEntityKey, on: j.joinExpression })),
    concepts: r.semanticConcepts
      .filter((c) => c.enabled)
      .map((c) => ({ concept: c.conceptKey, kind: c.conceptKind, description: c.description })),
    synonyms: r.semanticSynonyms
      .filter((s) => s.enabled)
      .map((s) => ({ text: s.synonymText, concept: s.conceptKey, domain: s.domainKey })),
  };
}
