package tools

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
)

// runCalculate evaluates an expression over facts the run's ledger holds
// already. A name's FactRef is resolved against the ledger only: a fact of
// the concept whose evidence is of the ticker, and whose period is the one
// asked, as a fiscal year ("FY2024") or a fact period exactly
// ("2023-10-01/2024-09-28"); no period means the latest fiscal year held.
//
// A fact's fiscal year comes from the filing its evidence is in: a fact
// ending on the filing's period end is of the filing's fiscal year, one
// ending about n years earlier (a comparative) of n years before. Facts of
// quarterly filings name a fiscal year only for the filing's own period.
// When several facts match, those of annual filings win, then those for
// the filing's own period, then the first recorded.
func runCalculate(ctx context.Context, env *Env, c *calculateCall) (*result, error) {
	l, err := env.Ledger.Load(ctx, env.RunID)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: reading the run's ledger: %w", Calculate, err)
	}
	docs, err := env.Store.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", Calculate, err)
	}
	docByID := make(map[string]corpus.Document, len(docs))
	for _, d := range docs {
		docByID[d.ID] = d
	}
	evByID := make(map[string]*ledger.Evidence, len(l.Evidence))
	for i := range l.Evidence {
		evByID[l.Evidence[i].ID] = &l.Evidence[i]
	}
	calc := &Calculation{Expression: c.Expression, Inputs: map[string]string{}, Values: map[string]string{}}
	vars := map[string]decimal.Decimal{}
	var lines []string
	for _, name := range c.Names {
		ref := c.Refs[name]
		m, alternatives := resolveFact(l.Facts, evByID, docByID, ref, c.Years[name], env.Scope)
		if m == nil {
			period := ref.Period
			if period == "" {
				period = "any period"
			}
			return nil, argErr(Calculate, "facts."+name,
				"no fact in this run's ledger is %s %s for %s; look it up with lookup_fact first (calculate uses registered facts only)",
				ref.Ticker, ref.Concept, period)
		}
		vars[name] = m.fact.Value
		calc.Inputs[name] = m.fact.ID
		calc.Values[name] = m.fact.Value.String()
		line := fmt.Sprintf("%s = %s %s: %s %s", name, m.fact.Value, m.fact.Unit, m.ev.Ticker, m.fact.Concept)
		if m.label != "" {
			line += " " + m.label
		}
		line += fmt.Sprintf(" (period %s; fact %s, evidence %s)", m.fact.Period, m.fact.ID, m.ev.ID)
		if len(alternatives) > 0 {
			line += fmt.Sprintf("; other facts the ledger holds for it differ: %s", strings.Join(alternatives, ", "))
		}
		lines = append(lines, line)
	}
	v, err := c.Tree.eval(vars)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", Calculate, err)
	}
	calc.Result = v
	res := &result{calc: calc}
	text := fmt.Sprintf("%s: %s = %s = %s", Calculate, c.Expression, substitute(c.Expression, vars), v.String())
	res.render = func(*result) string {
		resp := &response{noun: "lines"}
		resp.line("%s", text)
		if strings.Contains(c.Expression, "/") {
			resp.line("Each division is rounded to %d decimal places.", DivisionPlaces)
		}
		for _, l := range lines {
			resp.line("%s", l)
		}
		return resp.String()
	}
	return res, nil
}

// factMatch is a ledger fact a FactRef names, with its evidence.
type factMatch struct {
	fact  ledger.Fact
	ev    *ledger.Evidence
	year  int    // fiscal year; 0 when unknown
	own   bool   // for the filing's own period
	rank  int    // formRank of the evidence's filing
	label string // how the response names its period
}

// resolveFact finds the fact ref names among the ledger's facts and lists
// the values of other matching facts that differ from it.
func resolveFact(facts []ledger.Fact, evByID map[string]*ledger.Evidence, docByID map[string]corpus.Document,
	ref FactRef, year int, scope Scope) (*factMatch, []string) {
	if ref.Prior {
		own := ref
		own.Prior = false
		m, _ := resolveFact(facts, evByID, docByID, own, year, scope)
		if m == nil {
			return nil, nil
		}
		return priorFact(facts, evByID, m), nil
	}
	var matches []factMatch
	for _, f := range facts {
		if f.Concept != ref.Concept {
			continue
		}
		ev := evByID[f.EvidenceID]
		if ev == nil || ev.Ticker != ref.Ticker || !scope.hasTicker(ev.Ticker) {
			continue
		}
		m := factMatch{fact: f, ev: ev, rank: formRank(ev.Form)}
		d, known := docByID[ev.DocumentID]
		quarter := 0 // the fact's quarter of an annual report's year; 0 for none
		if known && isAnnual(d.Form) {
			if start, end, ok := factSpan(f.Period); ok && !start.IsZero() && end.Sub(start).Hours()/24 <= MaxQuarterDays {
				if fy, q, ok := quarterInYear(end, d); ok {
					quarter, m.year, m.own = q, fy, fy == d.FiscalYear
				}
			}
		}
		if quarter != ref.FiscalQuarter {
			// A quarter of an annual report's year answers a reference
			// to that quarter alone, never one to the year.
			continue
		}
		if known && quarter == 0 {
			m.year, m.own = fiscalYearOf(f.Period, d)
		}
		if m.year != 0 {
			if !scope.hasYear(m.year) {
				continue
			}
			m.label = PeriodLabel(m.year)
			if quarter > 0 {
				m.label = fmt.Sprintf("Q%d %s", quarter, m.label)
			}
		}
		switch {
		case ref.Period == "":
			if m.year == 0 {
				continue
			}
		case year != 0:
			if m.year != year {
				continue
			}
		default:
			if f.Period != ref.Period {
				continue
			}
		}
		matches = append(matches, m)
	}
	var best *factMatch
	for i := range matches {
		m := &matches[i]
		if best == nil || better(m, best, ref.Period == "") {
			best = m
		}
	}
	if best == nil {
		return nil, nil
	}
	var alternatives []string
	for _, m := range matches {
		if m.fact.Period == best.fact.Period && m.fact.Unit == best.fact.Unit && !m.fact.Value.Equal(best.fact.Value) {
			alternatives = append(alternatives, fmt.Sprintf("%s in fact %s", m.fact.Value, m.fact.ID))
		}
	}
	return best, alternatives
}

// priorFact returns the ledger fact under own's concept that own's filing
// shows for the period a year before own's: ending a year (give or take
// the week a 52/53-week calendar moves) before own's period ends, and as
// long as own's period (a quarter for a quarter); nil when the ledger holds
// none.
func priorFact(facts []ledger.Fact, evByID map[string]*ledger.Evidence, own *factMatch) *factMatch {
	start, end, ok := factSpan(own.fact.Period)
	if !ok {
		return nil
	}
	want := end.AddDate(-1, 0, 0)
	for _, f := range facts {
		ev := evByID[f.EvidenceID]
		if f.Concept != own.fact.Concept || f.Unit != own.fact.Unit || ev == nil || ev.DocumentID != own.ev.DocumentID {
			continue
		}
		s, e, ok := factSpan(f.Period)
		if !ok || s.IsZero() != start.IsZero() || math.Abs(e.Sub(want).Hours()/24) > 7 {
			continue
		}
		if !start.IsZero() && math.Abs(e.Sub(s).Hours()-end.Sub(start).Hours())/24 > 10 {
			continue
		}
		return &factMatch{fact: f, ev: ev, rank: own.rank}
	}
	return nil
}

// factSpan parses a ledger fact period, "START/END" or an instant "END";
// start is zero for an instant.
func factSpan(p string) (start, end time.Time, ok bool) {
	s, e, dur := strings.Cut(p, "/")
	if !dur {
		e = s
	}
	end, err := time.Parse(time.DateOnly, e)
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	if dur {
		if start, err = time.Parse(time.DateOnly, s); err != nil {
			return time.Time{}, time.Time{}, false
		}
	}
	return start, end, true
}

// better reports whether a is preferred to b (b was recorded first).
func better(a, b *factMatch, latest bool) bool {
	if latest && a.year != b.year {
		return a.year > b.year
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.own && !b.own
}

// fiscalYearOf returns the fiscal year a fact period is in, judged by the
// filing showing it, and whether it is the filing's own period.
func fiscalYearOf(period string, d corpus.Document) (int, bool) {
	end, ok := periodEnd(period)
	if !ok || d.PeriodEnd.IsZero() {
		return 0, false
	}
	diff := d.PeriodEnd.Sub(end).Hours() / 24
	years := math.Round(diff / 365.25)
	if years < 0 || math.Abs(diff-years*365.25) > 10 {
		return 0, false
	}
	if years > 0 && isQuarterly(d.Form) {
		return 0, false
	}
	return d.FiscalYear - int(years), years == 0
}

// periodEnd parses the end of a ledger fact period.
func periodEnd(p string) (time.Time, bool) {
	if _, after, ok := strings.Cut(p, "/"); ok {
		p = after
	}
	t, err := time.Parse(time.DateOnly, p)
	return t, err == nil
}
