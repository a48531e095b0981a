-- `convengine conversations erase` and DELETE /api/v1/admin/conversations/{id} leave an accountability record in the
-- retired id's row, without the personal data: who erased it, what was deleted (counts), and what Temporal still
-- held when its part could not run (null once every turn execution is deleted).
ALTER TABLE ce_retired_conversation ADD COLUMN IF NOT EXISTS erased_by text;
ALTER TABLE ce_retired_conversation ADD COLUMN IF NOT EXISTS erased_counts jsonb;
ALTER TABLE ce_retired_conversation ADD COLUMN IF NOT EXISTS temporal_remaining text;
