package pgstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ledgerline/research/corpus"
)

// parseQuerySQL reads a query like a web search. querytree is the part of
// the query an index can use: empty when only stop words remain, T when
// nothing is required (only negations, or "a or -b"); such a query would
// match nearly every chunk, so it finds nothing.
const parseQuerySQL = `
SELECT q::text, querytree(q)
FROM websearch_to_tsquery('english', $1) AS q`

// ftsSQL is completed by writeFilter and ftsOrder. $2 is the tsquery text.
// It ranks with ts_rank (term frequency) rather than ts_rank_cd (cover
// density): on the retrieval set ts_rank_cd ranked the OR fallback's partial
// matches poorly (full-text recall@10 0.597 against 0.771 with ts_rank; see
// docs/benchmarks.md).
const ftsSQL = `
SELECT ` + resultColumns + `, ts_rank(c.tsv, $2::tsquery)::float8 AS score
FROM ` + resultJoin + `
WHERE c.tenant_id = $1 AND c.tsv @@ $2::tsquery`

const ftsExclude = ` AND c.id <> ALL(%s::text[])`

const ftsOrder = ` ORDER BY score DESC, c.id LIMIT %s`

// FullTextSearch returns up to k chunks matching query under f, best first,
// scored by ts_rank. The query is read by websearch_to_tsquery with the
// english configuration. When the AND reading finds fewer than k chunks, the
// OR reading (see orQuery) fills the rest, after them. A query with no
// required word (empty, stop words, only negations) finds nothing.
func (s *Store) FullTextSearch(ctx context.Context, query string, f corpus.Filter, k int) ([]corpus.SearchResult, error) {
	if k <= 0 || strings.TrimSpace(query) == "" {
		return nil, nil
	}
	var and, tree string
	if err := s.pool.QueryRow(ctx, parseQuerySQL, query).Scan(&and, &tree); err != nil {
		return nil, fmt.Errorf("pgstore: full-text query %q: %w", query, err)
	}
	if tree == "" || tree == "T" {
		return nil, nil
	}
	results, err := s.fullText(ctx, and, f, nil, k)
	if err != nil || len(results) >= k {
		return results, err
	}
	or, err := orQuery(and)
	if err != nil || or == "" || or == and {
		return results, err
	}
	seen := make([]string, len(results))
	for i, r := range results {
		seen[i] = r.ChunkID
	}
	more, err := s.fullText(ctx, or, f, seen, k-len(results))
	if err != nil {
		return nil, err
	}
	return append(results, more...), nil
}

func (s *Store) fullText(ctx context.Context, tsquery string, f corpus.Filter, exclude []string, k int) ([]corpus.SearchResult, error) {
	a := args{s.tenant, tsquery}
	var sql strings.Builder
	sql.WriteString(ftsSQL)
	writeFilter(&sql, &a, f)
	if len(exclude) > 0 {
		fmt.Fprintf(&sql, ftsExclude, a.add(exclude))
	}
	fmt.Fprintf(&sql, ftsOrder, a.add(k))
	// A filtered search is planned for its arguments (see customPlan). An
	// unfiltered one keeps the cached plan: planned afresh, common-word
	// queries got a slower plan (sample corpus p50 28 ms against 16 ms).
	if !emptyFilter(f) {
		a = append(args{customPlan}, a...)
	}
	rows, _ := s.pool.Query(ctx, sql.String(), a...)
	results, err := pgx.CollectRows(rows, scanResult)
	if err != nil {
		return nil, fmt.Errorf("pgstore: full-text search %s: %w", tsquery, err)
	}
	return results, nil
}
