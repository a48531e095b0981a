import type { ConfigRows } from '../../core/config/types';

export type BusinessValue = string | number | boolean | null;

/** A table a pack creates in schema `business` (readable by the tools role, migration 0004). */
export interface BusinessTable {
  name: string;
  /** Column name → SQL type (with constraints), in order. */
  columns: Readonly<Record<string, string>>;
  primaryKey: readonly string[];
  rows: readonly Readonly<Record<string, BusinessValue>>[];
}

/** A named, self-contained slice of config (+ business data) that validates alone and with every other pack. */
export interface SeedPack {
  name: string;
  description: string;
  rows: Partial<ConfigRows>;
  business: readonly BusinessTable[];
  /** Messages the demo sends, in conversation order. */
  utterances: readonly string[];
}
