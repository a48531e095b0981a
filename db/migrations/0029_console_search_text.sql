-- The console's conversation search (GET /api/v1/console/conversations?q=) matches a reply by the text it shows: a
-- TEXT reply's value, a JSON reply's string and number values, a bare string (api/console/conversation-search.ts). This is that
-- text in one value, the scalars one per line, so that a trigram index can be built on it (db/search-indexes.ts):
-- the index finds the replies whose text holds the words asked for, and the search then checks each scalar on its
-- own, so a match across two of them is not one. PL/pgSQL, so the planner never inlines its subquery into an index
-- expression; IMMUTABLE, as jsonb_path_query is.
CREATE OR REPLACE FUNCTION ce_reply_search_text(reply jsonb) RETURNS text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF jsonb_typeof(reply) = 'string' THEN
    RETURN reply #>> '{}';
  END IF;
  RETURN (SELECT string_agg(said.v #>> '{}', E'\n')
    FROM jsonb_path_query(reply,
      CASE WHEN reply @> '{"type": "TEXT"}' AND reply ? 'value'
        THEN 'lax $.value.** ? (@.type() == "string" || @.type() == "number")'
        ELSE 'lax $.** ? (@.type() == "string" || @.type() == "number")' END::jsonpath) AS said(v));
END;
$$;
