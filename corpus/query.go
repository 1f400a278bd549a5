package corpus

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/ledgerline/research/corpus/internal/textsearch"
)

// Question is what a long analyst question asks, separated from how it
// asks: the words to look for, without the instructions on format and
// rounding, the scaffolding of definitions ("defined as", "divided by") and
// the words that only make it a question; and the fiscal years it names.
type Question struct {
	Words  []string // in question order, distinct, lower case
	Tokens []string // Words as written ("SG&A", "FCF"), without the years added
	Years  []int    // four-digit years named, in order, distinct
	// Reasons is true when the question asks why, what drove, or what is
	// expected: its answer is prose, not a figure in a table.
	Reasons bool
}

// longQuestionWords is the length, in words, from which a query is read as
// a question rather than as search terms. Short queries are searched as
// written, with the web-search syntax of Store.FullTextSearch.
const longQuestionWords = 12

// shortQuestionWords is the length from which a query that ends with a
// question mark ("META 2025 capex guide?") is read as a question.
const shortQuestionWords = 4

// instruction clauses: how to format, round or scale the answer.
var instructionRe = regexp.MustCompile(`(?i)\b(?:` + strings.Join([]string{
	`(?:rounded|round(?:ed)?|rounding)\s+(?:it\s+)?(?:to\s+)?(?:the\s+)?(?:nearest\s+)?(?:one|two|three|four|\d+)?\s*(?:decimal\s*(?:places?|points?)?|digits?|percent|tenths?|hundredths?|whole\s+numbers?)`,
	`(?:to|with|at)\s+(?:one|two|three|four|\d+)\s+decimals?(?:\s+places?)?`,
	`(?:in|as)\s+(?:us\s*)?(?:usd|\$|dollars)?\s*(?:millions|billions|thousands)(?:\s+of\s+(?:us\s+)?dollars)?`,
	`(?:in|as)\s+(?:us\s+)?(?:usd|dollars)`,
	`(?:as|in)\s+(?:a\s+)?(?:percentage|percent)(?:\s+points?)?`,
	`(?:show|state|give|list|provide)\s+(?:your|the|both|all|each)\s+(?:work|calculation|inputs?|components?|steps?)`,
	`(?:(?:one|two|three)\s+or\s+)?(?:one|two|three)\s+sentences?`,
}, "|") + `)\b`)

// StripInstructions blanks out a question's instruction clauses: how to
// format, round or scale the answer ("in millions", "as a percentage",
// "rounded to one decimal place").
func StripInstructions(q string) string { return instructionRe.ReplaceAllString(q, " ") }

// questionWords are the words that make a text a question or an
// instruction rather than say what it is about: interrogatives, verbs of
// asking and answering, and the glue of definitions and arithmetic. They
// are English, not the vocabulary of any filing.
var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		what whats which who how much many why when where whether
		compute computed computing calculate calculated calculating calculation
		derive derived estimate determine find tell
		use using used rely relying relied base based basing per according
		define defined defining definition defines i e g ie eg namely
		answer give giving show showing state stating provide providing express expressed
		report reporting summarize summarise explain describe cite quote name list keep
		round rounded rounding decimal decimals place places digit digits
		briefly brief sentence sentences figure figures number numbers value values
		result results input inputs output component components step steps
		divided divide dividing over minus plus less times multiplied sum
		compare compared comparing comparison versus vs relative against
		roughly approximately about also then both either each respectively
		assess assessing evaluate considering consider given provided
		usd dollar dollars million millions billion billions thousand thousands
		percent percentage percentages point points basis bps
	`) {
		questionWords[w] = true
	}
}

// reasonWords ask for an explanation or an expectation rather than a
// figure.
var reasonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		why because reason reasons cause caused causes explain explains explained explanation
		drove drive drives driven driver drivers attributable attributed
		expect expects expected expectation expectations anticipate anticipates outlook guidance
		forecast plan plans planned intend intends going forward future persist remain continue
	`) {
		reasonWords[w] = true
	}
}

// fiscalYearRe finds years as analysts write them: 2021, FY2021, FY21,
// FY'21, fiscal 2021; a year end, quarter, half or run of months with its
// year, written as one word (YE20, Q3'23, 3Q23, 1H24, 9M25); and a year
// alone after an apostrophe ("the June '23 quarter").
var fiscalYearRe = regexp.MustCompile(`(?i)(?:\bfy\s*['’]?(\d{2}|(?:19|20)\d{2})|\b(?:ye|cy|q[1-4]|[1-4]q|h[12]|[12]h|\d{1,2}m)['’]?(\d{2}|(?:19|20)\d{2})|\b((?:19|20)\d{2})|(?:^|\s)['’](\d{2}))\b`)

// periodWordRe is a word of a question that names a period and its year
// ("FY21", "YE20", "1H24"): its year is read into Years, the word itself
// is not searched for.
var periodWordRe = regexp.MustCompile(`(?i)^(?:fy|ye|cy|q[1-4]|[1-4]q|h[12]|[12]h|\d{1,2}m)\d{2}(?:\d{2})?$`)

// statementShorthand writes the financial statements' shorthand as the
// statements' names ("P&L" is the income statement, "B/S" the balance
// sheet), which questions also use and the statements' pages print.
var statementShorthand = strings.NewReplacer("P&L", "income statement", "p&l", "income statement",
	"B/S", "balance sheet", "b/s", "balance sheet", "CF statement", "cash flow statement")

// NameStatements writes the financial statements' shorthand in q as the
// statements' names: "P&L" is "income statement", "B/S" "balance sheet".
func NameStatements(q string) string { return statementShorthand.Replace(q) }

// AnalyzeQuestion reads q as an analyst question. drop lists words to leave
// out besides the question words (the words of the issuers a filter already
// selects), compared case-insensitively; tickers lists symbols to leave out
// where they are written in upper case, as symbols are.
func AnalyzeQuestion(q string, drop, tickers []string) Question {
	var out Question
	for _, m := range fiscalYearRe.FindAllStringSubmatch(q, -1) {
		y := m[1] + m[2] + m[3] + m[4] // one group matches
		if len(y) == 2 {
			y = "20" + y
		}
		n, err := strconv.Atoi(y)
		if err == nil && !containsInt(out.Years, n) {
			out.Years = append(out.Years, n)
		}
	}
	q = strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(q)
	q = statementShorthand.Replace(q)
	q = instructionRe.ReplaceAllString(q, " ")
	dropped := map[string]bool{}
	for _, w := range drop {
		dropped[strings.ToLower(w)] = true
	}
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&' && r != '\''
	}) {
		tok = strings.Trim(tok, "'")
		if i := strings.Index(tok, "'"); i > 0 { // a possessive: the name before it
			tok = tok[:i]
		}
		if tok == "" || containsString(tickers, tok) {
			continue
		}
		lower := strings.ToLower(tok)
		if reasonWords[lower] {
			out.Reasons = true
		}
		if periodWordRe.MatchString(lower) {
			continue // the year is in Years and in the words below
		}
		if questionWords[lower] || textsearch.IsStopWord(lower) || dropped[lower] || seen[lower] {
			continue
		}
		// "D&A", "SG&A" stay one word for the analyzer to split.
		seen[lower] = true
		out.Words = append(out.Words, lower)
		out.Tokens = append(out.Tokens, tok)
	}
	for _, y := range out.Years {
		if s := strconv.Itoa(y); !seen[s] {
			seen[s] = true
			out.Words = append(out.Words, s)
		}
	}
	return out
}

// IsLongQuestion reports whether q reads as a question to analyse rather
// than as search terms: without web-search operators, and written as a
// sentence (ending with ".", "?" or "!", from four words: "META 2025 capex
// guide?") or, from twelve words, asking in words ("what", "compute",
// "relying"…), which a list of keywords does not.
func IsLongQuestion(q string) bool {
	if strings.ContainsAny(q, `"`) || strings.Contains(" "+q, " -") {
		return false
	}
	words := strings.Fields(q)
	if len(words) < shortQuestionWords {
		return false
	}
	if last := words[len(words)-1]; strings.HasSuffix(last, "?") || strings.HasSuffix(last, ".") || strings.HasSuffix(last, "!") {
		return true
	}
	if len(words) < longQuestionWords {
		return false
	}
	if last := words[len(words)-1]; strings.Contains(q, "?") || strings.HasSuffix(last, ".") || strings.HasSuffix(last, "!") {
		return true
	}
	asking := 0
	for _, w := range words {
		if questionWords[strings.ToLower(strings.Trim(w, ".,;:!?()'"))] {
			asking++
		}
	}
	return asking >= 2
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func containsString(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
