package planner

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/ledgerline/research/tools"
)

// tailAsk matches a last ask that names a further topic in a few words,
// as analysts add one to a message: "... anything on interest exp", "any
// color on buybacks?", "what about the tax rate?". Group 1 is the topic.
var tailAsk = regexp.MustCompile(`(?i)(?:^|[.?!;,—–-]\s*|\s)(?:and\s+|also\s+|plus\s+)?(?:anything|something|any\s+(?:color|colour|comment|commentary|detail|details|word|update|mention)|what\s+about|how\s+about)\s+(?:on|about|re|regarding|around|for)?\s*(?:the\s+|its\s+|their\s+)?([\pL][\pL\s&'’-]{2,60}?)\s*[?.!]*\s*$`)

// planTailAsk plans the topic a question's last ask names in a few words
// ("ebay mgmt outlook into 2023 - does the rev vs gmv divergence keep
// going? anything on interest exp") as an item of its own, where no
// requirement of the plan names its words: a sentence of the issuer's
// filing on it (an expectation, where the question asks one), or its gap.
// The words are those of the topic the filings use; a clipped one ("exp")
// stays out of what a sentence must name.
func (b *builder) planTailAsk() {
	m := tailAsk.FindStringSubmatch(b.question)
	if m == nil {
		return
	}
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	stats := b.cat.TextStats()
	var words, tokens []string
	for _, w := range strings.FieldsFunc(strings.ToLower(m[1]), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) < 3 || questionStopwords[w] || skip[w] {
			continue
		}
		tokens = append(tokens, w)
		if stats.Documents() == 0 || stats.DocumentFrequency(w) > 0 {
			words = appendNew(words, w)
		}
	}
	if len(words) < len(tokens) {
		// A word clipped ("interest exp"): the row label of an asked
		// issuer's filing the words spell, each whole or clipped
		// ("Interest expense").
		for _, t := range b.rt.Issuers {
			for _, p := range b.periodsOf(t) {
				if l := b.cat.clippedLabel(p.doc.ID, tokens); p.found && l != "" {
					words = strings.Fields(l)
				}
			}
		}
	}
	if len(words) == 0 || len(words) > 4 {
		return
	}
	said := map[string]bool{}
	for _, r := range b.g.Requirements {
		for _, g := range r.Completion.AllOf {
			for _, term := range g {
				for _, w := range strings.Fields(strings.ToLower(term)) {
					said[stem5(w)] = true
				}
			}
		}
	}
	if !slices.ContainsFunc(words, func(w string) bool { return !said[stem5(w)] }) {
		return // the plan asks it already
	}
	groups := make([][]string, 0, 3)
	for _, w := range rarest(words, 2, stats) {
		groups = append(groups, []string{w})
	}
	kind, need, query := KindExplanation, "what %s's %s %s says on %s", strings.Join(words, " ")
	if b.rt.Outlook {
		kind, need, query = KindOutlook, "what %s's %s %s expects of %s", query+" expect"
		groups = append(groups, OutlookWords)
	}
	what := strings.Join(words, " ")
	for ii, t := range b.rt.Issuers {
		var p filingPeriod
		found := false
		for _, q := range b.periodsOf(t) {
			if q.found {
				p, found = q, true // the latest asked the issuer's filings hold
			}
		}
		if !found {
			continue
		}
		label := tools.PeriodLabel(p.fy)
		id := t + "-" + label + "-tail-" + slug(what)
		if b.addReq(Requirement{
			ID: id, Issuer: t, Period: label, Aspect: "general", Kind: kind, Required: true,
			Need:       fmt.Sprintf(need, b.cat.ShortName(t), tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form, what),
			Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: what, AllOf: groups},
		}, reqMeta{aspect: 0, issuer: ii}) {
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, "", 8), []string{id})
		}
	}
}

// clippedLabel returns the row label of the document, normalised, whose
// words are tokens, each whole or its first letters ("interest exp" for
// "interest expense"); the shortest of several, "" when none is.
func (c *Catalog) clippedLabel(documentID string, tokens []string) string {
	best := ""
	for _, e := range c.figures[documentID] {
		if e.Member != "" {
			continue
		}
		l := normLabel(e.Label)
		ws := strings.Fields(l)
		if len(ws) != len(tokens) {
			continue
		}
		match := true
		for i, w := range ws {
			if w != tokens[i] && !(len(tokens[i]) >= 3 && strings.HasPrefix(w, tokens[i])) {
				match = false
				break
			}
		}
		if match && (best == "" || len(l) < len(best) || len(l) == len(best) && l < best) {
			best = l
		}
	}
	return best
}
