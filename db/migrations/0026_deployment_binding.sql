-- Which Temporal deployment (namespace and task queue) this database belongs to. Two deployments on one Temporal
-- server and one PostgreSQL server differ only in those names and in DATABASE_URL: a worker given one deployment's
-- database and the other's task queue ran the other's turns with this database's config and wrote them here, and
-- two namespaces pointed at one database ran a conversation's turn twice (a write tool twice). The first
-- `convengine worker`, `api` or `start` on the database records its deployment; every later one whose
-- TEMPORAL_NAMESPACE or TEMPORAL_TASK_QUEUE differs refuses to start (db/deployment.ts), until an operator moves the
-- database on purpose with `convengine migrate --bind-deployment`. One row at most (id is always true).
CREATE TABLE ce_deployment (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  temporal_namespace text NOT NULL,
  task_queue text NOT NULL,
  bound_at timestamptz NOT NULL DEFAULT now()
);
