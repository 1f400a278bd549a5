package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
)

const factsSelect = `
SELECT f.document_id, f.concept, f.value, f.unit, f.decimals, f.period_start, f.period_end, f.instant,
	f.dimensions, f.context_id, f.start_offset, f.end_offset, f.kind, f.label
FROM facts f`

const factsJoinDocuments = ` JOIN documents d ON d.tenant_id = f.tenant_id AND d.id = f.document_id`

const factsOrder = ` ORDER BY f.document_id, f.ordinal`

// Facts returns the facts matching f, ordered by document and then in the
// order they were added.
func (s *Store) Facts(ctx context.Context, f corpus.FactFilter) ([]corpus.Fact, error) {
	var a args
	var sql strings.Builder
	sql.WriteString(factsSelect)
	if f.Ticker != "" {
		sql.WriteString(factsJoinDocuments)
	}
	sql.WriteString(" WHERE f.tenant_id = " + a.add(s.tenant))
	if f.DocumentID != "" {
		sql.WriteString(" AND f.document_id = " + a.add(f.DocumentID))
	}
	if f.Ticker != "" {
		sql.WriteString(" AND d.ticker = " + a.add(f.Ticker))
	}
	if f.Concept != "" {
		sql.WriteString(" AND f.concept = " + a.add(f.Concept))
	}
	if f.Kind != "" {
		sql.WriteString(" AND f.kind = " + a.add(f.Kind))
	}
	if f.Label != "" {
		sql.WriteString(" AND f.label = " + a.add(f.Label))
	}
	if f.Member != "" {
		sql.WriteString(" AND EXISTS (SELECT 1 FROM jsonb_each_text(f.dimensions) m WHERE m.value = " + a.add(f.Member) + ")")
	}
	if !f.PeriodEnd.IsZero() {
		sql.WriteString(" AND f.period_end = " + a.add(date(f.PeriodEnd)))
	}
	sql.WriteString(factsOrder)
	if f.Limit > 0 {
		sql.WriteString(" LIMIT " + a.add(f.Limit))
	}
	rows, _ := s.pool.Query(ctx, sql.String(), a...)
	facts, err := pgx.CollectRows(rows, scanFact)
	if err != nil {
		return nil, fmt.Errorf("pgstore: facts: %w", err)
	}
	return facts, nil
}

func scanFact(row pgx.CollectableRow) (corpus.Fact, error) {
	var f corpus.Fact
	var value pgtype.Numeric
	var start pgtype.Date
	err := row.Scan(&f.DocumentID, &f.Concept, &value, &f.Unit, &f.Decimals, &start, &f.PeriodEnd, &f.Instant,
		&f.Dimensions, &f.ContextID, &f.Start, &f.End, &f.Kind, &f.Label)
	if err != nil {
		return f, err
	}
	if f.Value, err = fromNumeric(value); err != nil {
		return f, err
	}
	if start.Valid {
		f.PeriodStart = start.Time
	}
	if len(f.Dimensions) == 0 {
		f.Dimensions = nil
	}
	return f, nil
}

// factKind is the stored kind of a fact: "" is an inline-XBRL fact.
func factKind(k string) string {
	if k == "" {
		return corpus.FactXBRL
	}
	return k
}

// numeric converts a decimal exactly, without a detour through text.
func numeric(d decimal.Decimal) pgtype.Numeric {
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

func fromNumeric(n pgtype.Numeric) (decimal.Decimal, error) {
	if !n.Valid || n.NaN || n.InfinityModifier != pgtype.Finite {
		return decimal.Decimal{}, errors.New("pgstore: fact value is not a finite number")
	}
	return decimal.NewFromBigInt(n.Int, n.Exp), nil
}

const (
	// A part's fact is listed by its part's name (corpus.PartLabel).
	factLabelsSQL = `
SELECT start_offset, label, coalesce(dimensions->>'` + corpus.TablePartAxis + `', '') FROM facts
WHERE tenant_id = $1 AND document_id = $2 AND label <> '' AND start_offset >= 0
ORDER BY start_offset, ordinal`
	allFactLabelsSQL = `
SELECT DISTINCT -1, label, coalesce(dimensions->>'` + corpus.TablePartAxis + `', '') FROM facts WHERE tenant_id = $1 AND label <> ''`
)

// conceptLabelsSQL lists the distinct (ticker, concept, label) of a
// tenant's facts in the default context (no dimensions) that are not a
// table's cells: one index scan of facts, not the facts whole.
const conceptLabelsSQL = `
SELECT DISTINCT d.ticker, f.concept, f.label
FROM facts f JOIN documents d ON d.tenant_id = f.tenant_id AND d.id = f.document_id
WHERE f.tenant_id = $1 AND f.concept <> '' AND f.label <> '' AND f.kind <> $2
  AND (f.dimensions = '{}'::jsonb OR f.dimensions = 'null'::jsonb)`

// ConceptLabels implements corpus.ConceptLabeler.
func (s *Store) ConceptLabels(ctx context.Context) ([]corpus.ConceptLabel, error) {
	rows, _ := s.pool.Query(ctx, conceptLabelsSQL, s.tenant, corpus.FactTable)
	labels, err := pgx.CollectRows(rows, pgx.RowToStructByPos[corpus.ConceptLabel])
	if err != nil {
		return nil, fmt.Errorf("pgstore: concept labels: %w", err)
	}
	return labels, nil
}

// FactLabels implements corpus.FactLabeler.
func (s *Store) FactLabels(ctx context.Context, documentID string) ([]corpus.FactLabel, error) {
	var rows pgx.Rows
	if documentID == "" {
		rows, _ = s.pool.Query(ctx, allFactLabelsSQL, s.tenant)
	} else {
		rows, _ = s.pool.Query(ctx, factLabelsSQL, s.tenant, documentID)
	}
	type row struct {
		Start       int
		Label, Part string
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		return nil, fmt.Errorf("pgstore: fact labels: %w", err)
	}
	labels := make([]corpus.FactLabel, 0, len(got))
	parts := make([]bool, 0, len(got))
	seen := map[string]bool{}
	for _, r := range got {
		l := corpus.PartLabel(r.Label, r.Part)
		if documentID == "" {
			if !seen[l] {
				seen[l] = true
				labels = append(labels, corpus.FactLabel{Start: -1, Label: l})
			}
			continue
		}
		labels, parts = append(labels, corpus.FactLabel{Start: r.Start, Label: l}), append(parts, r.Part != "")
	}
	if documentID == "" {
		return labels, nil
	}
	return corpus.PrintedLabels(labels, parts), nil
}
