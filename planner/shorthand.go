package planner

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// Analysts write a figure by the initials of its name: "GM%" for gross
// margin, "OM" for operating margin, "NI" for net income, "OCF" for
// operating cash flow. The initials are not listed anywhere: they are read
// from the labels the figure catalogues give their figures (tools.Metrics,
// tools.DerivedMetrics, of two words or more), and an initialism counts
// only when exactly one figure has it. A question writes them in capitals,
// and one is read as the figure where it is a general abbreviation of
// finance (financeAcronyms: "GM", "NI", "FCF"; not "CE", a ticker) or is
// followed by "%" ("GP%"); lower-case letters are words ("om", "ni").

// initialisms maps the upper-case initials of a catalogue figure's name
// to that name, in lower case.
var initialisms = func() map[string]string {
	byInitials := map[string]map[string]string{} // initials -> metric -> name
	add := func(metric string, names []string) {
		for _, n := range names {
			ini := nameInitials(n)
			if len(ini) < 2 {
				continue
			}
			if byInitials[ini] == nil {
				byInitials[ini] = map[string]string{}
			}
			if _, ok := byInitials[ini][metric]; !ok {
				byInitials[ini][metric] = strings.ToLower(n)
			}
		}
	}
	for _, m := range tools.Metrics {
		add(m.Name, []string{m.Label})
	}
	for _, d := range tools.DerivedMetrics {
		add(d.Name, []string{d.Label})
	}
	out := map[string]string{}
	for ini, metrics := range byInitials {
		if len(metrics) != 1 {
			continue // two figures share the initials: they name neither
		}
		for _, name := range metrics {
			out[ini] = name
		}
	}
	return out
}()

// clippedNames maps a general abbreviation of finance (financeAcronyms,
// lower case) that begins exactly one catalogue figure's one-word name to
// that name: "rev" is revenue. A clip of several figures' names
// abbreviates none of them.
var clippedNames = func() map[string]string {
	out := map[string]string{}
	ambiguous := map[string]bool{}
	names := map[string]string{} // one-word name -> metric
	for _, m := range tools.Metrics {
		for _, a := range append([]string{m.Label}, m.Aliases...) {
			if !strings.ContainsAny(a, " -&") {
				names[strings.ToLower(a)] = m.Name
			}
		}
	}
	for clip := range financeAcronyms {
		metric, name := "", ""
		for n, m := range names {
			if len(clip) >= 3 && len(n) > len(clip) && strings.HasPrefix(n, clip) {
				if metric != "" && metric != m {
					ambiguous[clip] = true
				}
				if metric == "" || len(n) < len(name) {
					metric, name = m, n
				}
			}
		}
		if metric != "" && !ambiguous[clip] {
			out[clip] = name
		}
	}
	return out
}()

// clippedWord is a word of lower-case letters.
var clippedWord = regexp.MustCompile(`\b[a-z]{3,6}\b`)

// nameInitials returns the initials of a name's words of letters (see
// initialsOf: "gross margin" -> "GM"), leaving out "and", "of" and "the";
// "" for a name of one word or with a word not made of letters ("r&d as %
// of revenue").
func nameInitials(name string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return unicode.IsSpace(r) || r == '-' }) {
		switch {
		case w == "and" || w == "of" || w == "the":
		case strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) >= 0:
			return ""
		default:
			words = append(words, w)
		}
	}
	return initialsOf(words)
}

// capsRun is a run of capitals; a word of two to five of them, standing
// alone (not in "FY22", "R&D" or "$GM"), may be an initialism.
var capsRun = regexp.MustCompile(`\p{Lu}+`)

// lowerRateInitials matches two to four letters in lower case right
// before a percent sign: "gm%", "om %".
var lowerRateInitials = regexp.MustCompile(`\b([a-z]{2,4}) ?%`)

// listAfter and listBefore find a list separator and a word in capitals
// beside it: "GM, F and TSLA" lists tickers, not figures ("NI and OCF"
// lists figures).
var (
	listAfter  = regexp.MustCompile(`^\s*(?:,|/|&|\band\b|\bor\b|\bvs\.?|\bversus\b)\s*\$?(\p{Lu}{1,5})\b`)
	listBefore = regexp.MustCompile(`\b(\p{Lu}{1,5})\s*(?:,|/|&|\band\b|\bor\b|\bvs\.?|\bversus\b)\s*$`)
)

// hyphenedStatement matches a financial statement's name written with
// hyphens: "cash-flow-statement", "cash-flow statement", "income-statement".
var hyphenedStatement = regexp.MustCompile(`(?i)\bcash-flows?-statements?\b|\bcash-flows?(?:\s+statements?\b)|\b(?:income|balance)-(?:statements?|sheets?)\b`)

// ReadShorthand writes out the initialisms of catalogue figures a question
// uses ("FY22 GM% for COST?" -> "FY22 gross margin% for COST?") and their
// clipped names ("data center rev" -> "data center revenue"), so that
// the rest of routing and planning reads the figure by its name, and a
// statement's name joined by hyphens as its words. A word is
// left as written when the corpus lists it as a ticker, when it is written
// as one ("$GM", "GM's"), or when it stands in a list of words in capitals
// ("GM, F and TSLA").
func ReadShorthand(question string, cat *Catalog) string {
	// Initials of a rate written in lower case ("gm%", "op margin%" aside)
	// are read as in capitals: the percent sign says they name a rate.
	question = lowerRateInitials.ReplaceAllStringFunc(question, func(m string) string {
		sub := lowerRateInitials.FindStringSubmatch(m)
		if _, ok := initialisms[strings.ToUpper(sub[1])]; !ok {
			return m
		}
		return strings.ToUpper(sub[1]) + m[len(sub[1]):]
	})
	var b strings.Builder
	last := 0
	for _, m := range capsRun.FindAllStringIndex(question, -1) {
		ws, we := m[0], m[1]
		word := question[ws:we]
		if n := utf8.RuneCountInString(word); n < 2 || n > 5 {
			continue
		}
		if r, _ := utf8.DecodeLastRuneInString(question[:ws]); ws > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '$' || r == '&') {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(question[we:]); we < len(question) && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '&') {
			continue
		}
		name, ok := initialisms[word]
		rest := question[we:]
		if !ok || cat != nil && cat.corpusTicker(word) != "" ||
			!financeAcronyms[strings.ToLower(word)] && !strings.HasPrefix(strings.TrimLeft(rest, " "), "%") {
			continue
		}
		if strings.HasPrefix(rest, "'s") || strings.HasPrefix(rest, "’s") ||
			listsOther(listAfter.FindStringSubmatch(rest)) || listsOther(listBefore.FindStringSubmatch(question[:ws])) {
			continue
		}
		b.WriteString(question[last:ws])
		b.WriteString(name)
		last = we
	}
	if last > 0 {
		b.WriteString(question[last:])
		question = b.String()
	}
	// A statement's name joined by hyphens ("cash-flow-statement") is its
	// name: its words are not a figure's.
	question = hyphenedStatement.ReplaceAllStringFunc(question, func(m string) string { return strings.ReplaceAll(m, "-", " ") })
	// The statements' shorthand is their name: "P&L" is the income
	// statement, "B/S" the balance sheet.
	question = corpus.NameStatements(question)
	// Clipped names ("data center rev"), which are words in lower case.
	question = clippedWord.ReplaceAllStringFunc(question, func(w string) string {
		if name, ok := clippedNames[w]; ok {
			return name
		}
		return w
	})
	// Money said to be made from a thing, no figure named ("what did
	// Apple make from services"), is revenue from it.
	if loc := madeFromPart.FindStringIndex(question); loc != nil && !fromHoldings.MatchString(question[loc[1]:]) && len(FindFigures(question)) == 0 {
		question = madeFromPart.ReplaceAllString(question, "$1 in revenue from")
	}
	return question
}

// fromHoldings matches, after "made from", what earns income rather than
// revenue: interest, investments, securities, holdings ("what did Apple
// earn from interest" asks other income, not revenue).
var fromHoldings = regexp.MustCompile(`(?i)^\s+(?:(?:its|their|the)\s+)?(?:interest|investments?|securities|holdings?|stakes?|cash|deposits|dividends)\b`)

// madeFromPart matches money said to be made from a thing: "make from",
// "earned from", "brought in from". (Cash "generated from" operations is a
// figure of its own.)
var madeFromPart = regexp.MustCompile(`(?i)\b(make|made|makes|earn|earned|earns|bring\s+in|brought\s+in|brings\s+in|pull(?:ed|s)?\s+in|rake(?:d|s)?\s+in)\s+from\b`)

// listsOther reports whether a list match names a word in capitals other
// than a figure's initials.
func listsOther(m []string) bool {
	if m == nil {
		return false
	}
	_, ok := initialisms[m[1]]
	return !ok
}
