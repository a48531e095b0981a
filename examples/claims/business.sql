-- The business table the claims DB tool reads (DB tools read schema `business` as role convengine_tools_ro).
CREATE SCHEMA IF NOT EXISTS business;
CREATE TABLE IF NOT EXISTS business.claims_policy (
  policy_number  text PRIMARY KEY,
  status         text NOT NULL,
  coverage_limit integer NOT NULL
);
INSERT INTO business.claims_policy VALUES ('P-1001', 'ACTIVE', 5000), ('P-2002', 'LAPSED', 0)
  ON CONFLICT (policy_number) DO NOTHING;
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'convengine_tools_ro') THEN
    GRANT USAGE ON SCHEMA business TO convengine_tools_ro;
    GRANT SELECT ON business.claims_policy TO convengine_tools_ro;
  END IF;
END $$;
