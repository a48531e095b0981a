import { bigint, boolean, integer, jsonb, numeric, pgTable, text } from 'drizzle-orm/pg-core';

const id = (name: string) => bigint(name, { mode: 'number' }).primaryKey();
const enabled = () => boolean('enabled').notNull().default(true);

export const ceSemanticConcept = pgTable('ce_semantic_concept', {
  conceptId: id('concept_id'),
  conceptKey: text('concept_key').notNull().unique(),
  conceptKind: text('concept_kind').notNull(),
  description: text('description'),
  tags: jsonb('tags'),
  enabled: enabled(),
});

export const ceSemanticSynonym = pgTable('ce_semantic_synonym', {
  synonymId: id('synonym_id'),
  synonymText: text('synonym_text').notNull(),
  conceptKey: text('concept_key').notNull(),
  domainKey: text('domain_key'),
  confidenceScore: numeric('confidence_score', { precision: 4, scale: 3 }),
  enabled: enabled(),
});

export const ceSemanticEntity = pgTable('ce_semantic_entity', {
  entityId: id('entity_id'),
  entityKey: text('entity_key').notNull().unique(),
  primaryTable: text('primary_table').notNull(),
  relatedTables: jsonb('related_tables'),
  synonyms: jsonb('synonyms'),
  fieldsJson: jsonb('fields_json'),
  description: text('description'),
  enabled: enabled(),
});

export const ceSemanticQueryClass = pgTable('ce_semantic_query_class', {
  queryClassId: id('query_class_id'),
  queryClassKey: text('query_class_key').notNull().unique(),
  baseTableName: text('base_table_name').notNull(),
  description: text('description'),
  astSkeletonJson: jsonb('ast_skeleton_json'),
  allowedFilterFields: jsonb('allowed_filter_fields'),
  defaultSelectFields: jsonb('default_select_fields'),
  defaultSortFields: jsonb('default_sort_fields'),
  enabled: enabled(),
});

export const ceSemanticMapping = pgTable('ce_semantic_mapping', {
  mappingId: id('mapping_id'),
  conceptKey: text('concept_key').notNull(),
  entityKey: text('entity_key').notNull(),
  fieldKey: text('field_key').notNull(),
  mappedTable: text('mapped_table').notNull(),
  mappedColumn: text('mapped_column').notNull(),
  operatorType: text('operator_type').notNull().default('EQ'),
  valueMapJson: jsonb('value_map_json'),
  queryClassKey: text('query_class_key'),
  priority: integer('priority').notNull().default(100),
  enabled: enabled(),
});

export const ceSemanticJoinPath = pgTable('ce_semantic_join_path', {
  joinPathId: id('join_path_id'),
  leftEntityKey: text('left_entity_key').notNull(),
  rightEntityKey: text('right_entity_key').notNull(),
  joinExpression: text('join_expression').notNull(),
  priority: integer('priority').notNull().default(100),
  enabled: enabled(),
});
