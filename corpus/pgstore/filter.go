package pgstore

import (
	"fmt"
	"strings"

	"github.com/ledgerline/research/corpus"
)

// Filter fragments over chunks c joined with documents d.
const (
	filterTickers     = ` AND d.ticker = ANY(%s::text[])`
	filterForm        = ` AND d.form = %s`
	filterFiscalYears = ` AND d.fiscal_year = ANY(%s::int[])`
	filterSection     = ` AND c.section = %s`
)

// writeFilter appends the predicates of f, leaving out the empty ones so
// that each query's plan fits the filter it actually has.
func writeFilter(sql *strings.Builder, a *args, f corpus.Filter) {
	if len(f.Tickers) > 0 {
		fmt.Fprintf(sql, filterTickers, a.add(f.Tickers))
	}
	if f.Form != "" {
		fmt.Fprintf(sql, filterForm, a.add(f.Form))
	}
	if len(f.FiscalYears) > 0 {
		fmt.Fprintf(sql, filterFiscalYears, a.add(f.FiscalYears))
	}
	if f.Section != "" {
		fmt.Fprintf(sql, filterSection, a.add(f.Section))
	}
}
