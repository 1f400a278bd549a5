package planner

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/tools"
)

// A question may name something no filing of the corpus mentions: a rival
// ("how much of Apple's Greater China growth came from Huawei losing
// share"), a product, a person. Whatever else the plan gathers, that name
// is an asked item; no passage can be about it, so it is planned as a
// requirement that names it and reported as a gap saying so, and the run
// cannot end supported on the rest.

// unmentionedNames returns the names the question writes with a capital
// (a capital and lower-case letters after it, three letters or more, not
// opening a sentence) that no document of the corpus holds, by its
// statistics; nil when the statistics know no documents. Issuers' names
// and issuers outside the corpus are left out: those are reported as
// issuers.
func (b *builder) unmentionedNames() []string {
	stats := b.cat.TextStats()
	if stats.Documents() == 0 {
		return nil
	}
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	for _, n := range b.rt.NotCovered {
		for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return !unicode.IsLetter(r) }) {
			skip[w] = true
		}
	}
	var out []string
	opening := true
	for _, w := range strings.FieldsFunc(withoutAsides(b.question), unicode.IsSpace) {
		starts := opening
		opening = strings.ContainsAny(w[len(w)-1:], ".:?!;")
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
		w = trimPossessive(strings.ReplaceAll(w, "’", "'"))
		if starts || !titleCase(w) || skip[strings.ToLower(w)] || monthAbbreviations[strings.ToLower(w)] || slices.Contains(out, w) {
			continue
		}
		if stats.DocumentFrequency(w) == 0 {
			out = append(out, w)
		}
	}
	return out
}

// possessiveRun matches a run of capitalised words ending in a possessive:
// "Jensen Huang's".
var possessiveRun = regexp.MustCompile(`((?:\p{Lu}[\p{L}.-]*\s+){0,3}\p{Lu}[\p{L}.-]*)['’]s\b`)

// comparing matches the words that set two owners side by side.
var comparing = regexp.MustCompile(`(?i)\b(vs\.?|versus|compared?|comparison|against|relative\s+to)\b`)

// unmentionedOwner returns the name no filing mentions that owns what the
// question asks: the first possessive of the question is of a run of
// names holding it ("What was Jensen Huang's total compensation"), and no
// other owner is set beside it. The figures asked are then its, not the
// issuer's; "" when there is none.
func (b *builder) unmentionedOwner() string {
	names := b.unmentionedNames()
	if len(names) == 0 || comparing.MatchString(b.question) {
		return ""
	}
	m := possessiveRun.FindStringSubmatch(withoutAsides(b.question))
	if m == nil {
		return ""
	}
	for _, w := range strings.Fields(m[1]) {
		if slices.Contains(names, w) {
			return w
		}
	}
	return ""
}

// monthAbbreviations are months as questions shorten them ("Jan-23
// FYE", "Sept quarter"), which filings write in full.
var monthAbbreviations = map[string]bool{"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true,
	"aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true}

// titleCase reports whether w is a capital and then lower-case letters
// only, three letters or more: "Huawei", not "GMV", "iPhone" or "US".
func titleCase(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	if utf8.RuneCountInString(w) < 3 || !unicode.IsUpper(r) {
		return false
	}
	for _, c := range w[size:] {
		if !unicode.IsLower(c) {
			return false
		}
	}
	return true
}

// planUnmentionedNames plans, for each issuer and period the question
// asks about, a required passage naming each name no filing holds: a gap
// that says what was asked and that the corpus does not mention it.
func (b *builder) planUnmentionedNames() {
	names := b.unmentionedNames()
	if len(names) == 0 {
		return
	}
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found {
				continue
			}
			period := tools.PeriodLabel(p.fy)
			for _, n := range names {
				id := t + "-" + period + "-named-" + slug(strings.ToLower(n))
				if b.addReq(Requirement{
					ID: id, Issuer: t, Period: period, Aspect: "general", Kind: KindExplanation, Required: true,
					Need: fmt.Sprintf("what %s's %s %s says of %s, which the question names (no filing in the corpus mentions %s)",
						b.cat.ShortName(t), tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form, n, n),
					Completion: Condition{Kind: CondPassage, Issuer: t, Period: period, Topic: n, AllOf: [][]string{{strings.ToLower(n)}}},
				}, reqMeta{aspect: 0, issuer: ii}) {
					b.addNode(tools.SearchFilings, b.searchArgs(t, p, n, "", 4), []string{id})
				}
			}
		}
	}
}
