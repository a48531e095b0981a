import { sql } from 'drizzle-orm';
import type { Database } from '../../db/pool';

/**
 * Has PostgreSQL refuse every ce_audit row of `stage` as it refuses data it cannot store (SQLSTATE 22023, a data
 * exception): a batch that carries one is refused whole, the way a lone surrogate once had a turn's refused.
 */
export async function refuseAuditStage(db: Database, stage: string): Promise<void> {
  await db.execute(
    sql.raw(`CREATE OR REPLACE FUNCTION test_refuse_audit_stage() RETURNS trigger AS $$
    BEGIN
      IF NEW.stage = '${stage.replace(/'/g, "''")}' THEN
        RAISE EXCEPTION 'this row cannot be stored' USING ERRCODE = '22023';
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`)
  );
  await db.execute(
    sql.raw(`CREATE OR REPLACE TRIGGER test_refuse_audit_stage BEFORE INSERT OR UPDATE ON ce_audit
    FOR EACH ROW EXECUTE FUNCTION test_refuse_audit_stage()`)
  );
}
