import type { Json } from '../json';

/** Typed rows of the semantic-query tables (ce_semantic_*), as held in a snapshot; the conventions are core/config/types.ts's. */
export interface SemanticConceptRow {
  conceptId: number;
  conceptKey: string;
  conceptKind: string;
  description: string | null;
  tags: Json | null;
  enabled: boolean;
}

export interface SemanticSynonymRow {
  synonymId: number;
  synonymText: string;
  conceptKey: string;
  domainKey: string | null;
  confidenceScore: number | null;
  enabled: boolean;
}

export interface SemanticEntityRow {
  entityId: number;
  entityKey: string;
  primaryTable: string;
  relatedTables: Json | null;
  synonyms: Json | null;
  fieldsJson: Json | null;
  description: string | null;
  enabled: boolean;
}

export interface SemanticQueryClassRow {
  queryClassId: number;
  queryClassKey: string;
  baseTableName: string;
  description: string | null;
  astSkeletonJson: Json | null;
  allowedFilterFields: Json | null;
  defaultSelectFields: Json | null;
  defaultSortFields: Json | null;
  enabled: boolean;
}

export interface SemanticMappingRow {
  mappingId: number;
  conceptKey: string;
  entityKey: string;
  fieldKey: string;
  mappedTable: string;
  mappedColumn: string;
  operatorType: string;
  valueMapJson: Json | null;
  queryClassKey: string | null;
  priority: number;
  enabled: boolean;
}

export interface SemanticJoinPathRow {
  joinPathId: number;
  leftEntityKey: string;
  rightEntityKey: string;
  joinExpression: string;
  priority: number;
  enabled: boolean;
}
