-- The business table the claims DB tool reads (DB tools read schema `business` as the database's tools role).
CREATE SCHEMA IF NOT EXISTS business;
CREATE TABLE IF NOT EXISTS business.claims_policy (
  policy_number  text PRIMARY KEY,
  status         text NOT NULL,
  coverage_limit integer NOT NULL
);
INSERT INTO business.claims_policy VALUES ('P-1001', 'ACTIVE', 5000), ('P-2002', 'LAPSED', 0)
  ON CONFLICT (policy_number) DO NOTHING;
-- Granted to this database's SQL tools role (convengine_tools_ro_<database>, which `convengine migrate` created).
DO $$ DECLARE reader text; BEGIN
  FOR reader IN SELECT r.rolname FROM pg_namespace n
      CROSS JOIN LATERAL aclexplode(n.nspacl) a JOIN pg_roles r ON r.oid = a.grantee
      WHERE n.nspname = 'business' AND a.privilege_type = 'USAGE' AND starts_with(r.rolname, 'convengine_tools_ro') LOOP
    EXECUTE format('GRANT SELECT ON business.claims_policy TO %I', reader);
  END LOOP;
END $$;
