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

// defaultFullTextCandidates is Config.FullTextCandidates' default.
const defaultFullTextCandidates = 1000

// ftsSQL ranks every chunk matching $2, the tsquery text: the unbounded
// search (Config.FullTextCandidates -1). Completed by writeFilter,
// ftsExclude and ftsOrder. Both searches rank with ts_rank (term frequency)
// rather than ts_rank_cd (cover density): on the retrieval set ts_rank_cd
// ranked the OR fallback's partial matches poorly (full-text recall@10 0.597
// against 0.771 with ts_rank; see docs/benchmarks.md).
const ftsSQL = `
SELECT ` + resultColumns + `, ts_rank(c.tsv, $2::tsquery)::float8 AS score
FROM ` + resultJoin + `
WHERE c.tenant_id = $1 AND c.tsv @@ $2::tsquery`

const ftsExclude = ` AND c.id <> ALL(%s::text[])`

const ftsOrder = ` ORDER BY score DESC, c.id LIMIT %s`

// ftsCandidatesSQL is the bounded search: it ranks by ts_rank for $3 only
// the first chunks matching $2 that the index yields (%[1]s is their
// number), reading nothing of them but their id and tsvector, counts them,
// and joins the best k (%[2]s) to their columns. The candidates' query is
// completed by the filter (filterDocumentIDs, filterSection) and
// ftsExclude, then ftsCandidatesEnd.
const ftsCandidatesSQL = `
WITH best AS (
	SELECT m.id, ts_rank(m.tsv, $3::tsquery)::float8 AS score, count(*) OVER () AS candidates
	FROM (SELECT c.id, c.tsv FROM chunks c
		WHERE c.tenant_id = $1 AND c.tsv @@ $2::tsquery`

const ftsCandidatesEnd = ` LIMIT %[1]s) AS m
	ORDER BY score DESC, m.id LIMIT %[2]s)
SELECT ` + resultColumns + `, best.score, best.candidates
FROM best JOIN ` + resultJoin + ` ON c.tenant_id = $1 AND c.id = best.id
ORDER BY best.score DESC, c.id`

// FullTextSearch returns up to k chunks matching query under f, best first,
// scored by ts_rank. The query is read by websearch_to_tsquery with the
// english configuration. When the AND reading finds fewer than k chunks, the
// OR reading (see orQuery) fills the rest, after them. A query with no
// required word (empty, stop words, only negations) finds nothing.
//
// One search ranks at most Config.FullTextCandidates matches, the first the
// index yields: a query of common words matches much of a large corpus, and
// ranking every match is what made it slow (0.66 s at 200,000 chunks, see
// docs/benchmarks.md). A reading that matches at least k chunks still
// returns k of them, so the AND reading's matches always come first. Where
// an OR matches more chunks than the bound, a sample of them would rank
// poorly, so the chunks holding more of the query's operands are looked for
// first (see ladder).
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
	if s.ftsCandidates < 0 {
		return s.unboundedFullText(ctx, and, f, k)
	}
	l, ok, err := newLadder(and)
	if err != nil || !ok {
		return nil, err
	}
	var docs []string
	if documentFilter(f) {
		if docs, err = s.documentIDs(ctx, f); err != nil || len(docs) == 0 {
			return nil, err
		}
	}
	search := func(st stage, exclude []string, k int) ([]corpus.SearchResult, bool, error) {
		return s.fullText(ctx, st, docs, f.Section, exclude, k)
	}
	isOr := l.first == l.or
	results, saturated, err := search(l.first, nil, k)
	switch {
	case err != nil:
		return nil, err
	case !saturated && (isOr || len(results) >= k), isOr && len(l.levels) == 0:
		return results, nil // every match was ranked, or no level can do better
	case !isOr && len(results) >= k:
		return results, nil // a sample of the AND reading's matches: each holds every word
	case isOr:
		results = nil // a sample of an OR's matches: step down the levels instead
	default:
		more, saturated, err := search(l.or, chunkIDs(results), k-len(results))
		if err != nil {
			return nil, err
		}
		if !saturated || len(l.levels) == 0 {
			return append(results, more...), nil
		}
	}
	for _, st := range append(l.levels, l.or) {
		more, _, err := search(st, chunkIDs(results), k-len(results))
		if err != nil {
			return nil, err
		}
		if results = append(results, more...); len(results) >= k {
			break
		}
	}
	return results, nil
}

// unboundedFullText ranks every chunk matching the AND reading, then, when
// they are fewer than k, every chunk matching the OR reading.
func (s *Store) unboundedFullText(ctx context.Context, and string, f corpus.Filter, k int) ([]corpus.SearchResult, error) {
	results, err := s.fullTextAll(ctx, and, f, nil, k)
	if err != nil || len(results) >= k {
		return results, err
	}
	or, err := orQuery(and)
	if err != nil || or == "" || or == and {
		return results, err
	}
	more, err := s.fullTextAll(ctx, or, f, chunkIDs(results), k-len(results))
	if err != nil {
		return nil, err
	}
	return append(results, more...), nil
}

// fullTextAll returns the best k chunks matching tsquery under f, except
// those of exclude, ranking every match.
func (s *Store) fullTextAll(ctx context.Context, tsquery string, f corpus.Filter, exclude []string, k int) ([]corpus.SearchResult, error) {
	a := args{s.tenant, tsquery}
	var sql strings.Builder
	sql.WriteString(ftsSQL)
	writeFilter(&sql, &a, f)
	if len(exclude) > 0 {
		fmt.Fprintf(&sql, ftsExclude, a.add(exclude))
	}
	fmt.Fprintf(&sql, ftsOrder, a.add(k))
	rows, _ := s.pool.Query(ctx, sql.String(), planFor(!emptyFilter(f), a)...)
	results, err := pgx.CollectRows(rows, scanResult)
	if err != nil {
		return nil, fmt.Errorf("pgstore: full-text search %s: %w", tsquery, err)
	}
	return results, nil
}

// fullText returns the best k chunks of the first Config.FullTextCandidates
// (at least k) matching st, except those of exclude, among the chunks of
// docs (nil: every document) in section ("": any); saturated reports that
// there were that many, so that more may match.
func (s *Store) fullText(ctx context.Context, st stage, docs []string, section string, exclude []string, k int) (results []corpus.SearchResult, saturated bool, err error) {
	bound := max(s.ftsCandidates, k)
	a := args{s.tenant, st.match, st.rank}
	var sql strings.Builder
	sql.WriteString(ftsCandidatesSQL)
	if docs != nil {
		fmt.Fprintf(&sql, filterDocumentIDs, a.add(docs))
	}
	if section != "" {
		fmt.Fprintf(&sql, filterSection, a.add(section))
	}
	if len(exclude) > 0 {
		fmt.Fprintf(&sql, ftsExclude, a.add(exclude))
	}
	fmt.Fprintf(&sql, ftsCandidatesEnd, a.add(bound), a.add(k))
	// Planned for its arguments, filtered or not: whether the index or a
	// scan that stops at the bound finds the candidates sooner depends on
	// how common the words are (at 200,000 chunks, p95 43 ms against 84 ms
	// with the cached plan, unfiltered).
	rows, _ := s.pool.Query(ctx, sql.String(), append(args{customPlan}, a...)...)
	var candidates int
	results, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (corpus.SearchResult, error) {
		var r corpus.SearchResult
		err := row.Scan(&r.ChunkID, &r.DocumentID, &r.Ticker, &r.Company, &r.Form, &r.FiscalYear, &r.PeriodEnd,
			&r.Section, &r.Page, &r.Start, &r.End, &r.Text, &r.Score, &candidates)
		return r, err
	})
	if err != nil {
		return nil, false, fmt.Errorf("pgstore: full-text search %s: %w", st.match, err)
	}
	return results, candidates >= bound, nil
}

// planFor returns the arguments a of a search, asking for a plan of their
// own when it is filtered (see customPlan). An unfiltered search keeps the
// cached plan: planned afresh, common-word queries got a slower plan
// (sample corpus p50 28 ms against 16 ms).
func planFor(filtered bool, a args) []any {
	if !filtered {
		return a
	}
	return append(args{customPlan}, a...)
}

func chunkIDs(rs []corpus.SearchResult) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ChunkID
	}
	return ids
}
