-- The console search's fold (db/search-collation.ts FOLD, whose comment says why each step): Unicode's compatibility
-- caseless match with PostgreSQL 15's functions, the stored text and the query alike, and the expression of the
-- search's trigram indexes (db/search-indexes.ts). A function, for its COST: about 20 µs a text, ten times lower()'s;
-- written out in each statement, the planner counted it as a few operators and chose to fold every USER_INPUT audit
-- row through a plain index over the trigram index. PL/pgSQL, so it is never inlined (which would lose the COST), and
-- its collation is looked up when it runs: a database without ICU gets this migration, and the search says why it
-- cannot run (searchCollationProblem). ς σ, the combining dot above and ß by chr(), which a SQL_ASCII database parses.
CREATE OR REPLACE FUNCTION ce_search_fold(t text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 500 AS $$
DECLARE
  folded text := replace(replace(lower(upper(normalize(t, NFKC) COLLATE "und-x-icu")), chr(962), chr(963)),
    chr(223), 'ss');
BEGIN
  -- The dot above that lower() puts after the i of İ, wherever canonical order put it among the i's marks.
  IF strpos(folded, chr(775)) > 0 THEN
    folded := regexp_replace(folded, 'i([\u0300-\u036f]*?)\u0307', 'i\1', 'g');
  END IF;
  RETURN normalize(folded, NFKC);
END;
$$;
