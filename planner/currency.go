package planner

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ledgerline/research/tools"
)

// What changes in exchange rates did to a figure, asked as an amount ("$
// size of the FX headwind to International net sales", "how big was the
// FX hit"): the filings state it in a sentence of its own ("Changes in
// foreign currency exchange rates reduced International net sales by
// $15.0 billion in 2022"), which the topic of risks or of the figure's
// explanation does not ask for.

// currencyEffect matches a question asking the size of a currency effect.
var currencyEffect = regexp.MustCompile(`(?i)\b(?:fx|forex|currency|currencies|foreign[\s-]+exchange|exchange[\s-]+rates?)\s+(?:hit|headwinds?|tailwinds?|impacts?|effects?|drag|benefit|translation)\b`)

// currencySized matches the words that ask its size: an amount, not a
// discussion.
var currencySized = regexp.MustCompile(`(?i)\$|\b(?:how\s+(?:big|large|much)|size|amount|dollar)\b`)

// CurrencyTerms are the words a sentence names exchange rates with.
var CurrencyTerms = []string{"foreign currency", "foreign exchange", "exchange rate", "currency"}

// planCurrencyEffect plans, where the question asks how big a currency
// effect was, for each issuer and period, a sentence naming exchange
// rates and the figure (or the part) it moved with an amount, or its gap.
// It reports whether it planned one.
func (b *builder) planCurrencyEffect() bool {
	if !currencyEffect.MatchString(b.question) || !currencySized.MatchString(b.question) {
		return false
	}
	// The effect's own words ("FX hit") asked as a figure of another name
	// are this requirement's.
	said := strings.ToLower(currencyEffect.FindString(b.question))
	var others []string
	for _, r := range b.g.Requirements {
		if strings.Contains(strings.ToLower(r.Completion.Topic), said) {
			others = append(others, r.ID)
		}
	}
	if len(others) > 0 {
		b.remove(others)
	}
	planned := false
	b.eachAskedPeriod(func(t string, p filingPeriod, m reqMeta) {
		groups := [][]string{CurrencyTerms}
		what, query := "effect of exchange rates", "changes in foreign currency exchange rates"
		if parts := b.partNames(t); len(parts) > 0 {
			groups = append(groups, parts)
			what += " on " + parts[0]
			query += " " + parts[0]
		}
		groups = append(groups, []string{AmountTerm})
		period := tools.PeriodLabel(p.fy)
		id := t + "-" + period + "-figure-currency-effect"
		if b.addReq(Requirement{
			ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: true,
			Need:       fmt.Sprintf("the %s that %s's %s %s states as an amount", what, b.cat.ShortName(t), tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
			Completion: Condition{Kind: CondPassage, Issuer: t, Period: period, Topic: what, AllOf: groups},
		}, m) {
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, "", 8), []string{id})
			planned = true
		}
	})
	return planned
}
