package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/validator"
)

// markdownResult is a result whose answer and excerpts hold what Markdown
// would misread: emphasis, a link, a heading, a list number, HTML, an
// entity, a table row, a trailing backslash, and line breaks.
func markdownResult() *executor.Result {
	page := 23
	return &executor.Result{
		RunID: "run-20250101-000000-abcd1234", Status: ledger.StatusPartial,
		Mode: ledger.ModeModel, RequestedMode: executor.ModeAuto, Class: "comparison", ElapsedMS: 147,
		Answer: "Gross margin fell to 40% [1].\n# Not a heading; see [2].\n\nR&D rose *sharply* [1].",
		Citations: []executor.Citation{
			{Index: 1, EvidenceID: "E1a2b", Ticker: "ACME", Form: "10-K", FiscalYear: 2024, PeriodEnd: "2024-12-31", Page: &page, Section: "Item 7",
				Excerpt: "Gross margin decreased to 40.0% due to *higher* component_costs and [freight](http://x.test).\n2024. was a year of <b>change</b> &amp; more | less \\"},
			{Index: 2, EvidenceID: "E3c4d", Ticker: "BOLT", Form: "10-Q", FiscalYear: 2024, PeriodEnd: "2024-06-30", Section: "Item 2",
				Excerpt: "> quoted\n- listed\n    indented   spaces\n\n===\n_under_ `code` ~strike~"},
		},
		Figures: []executor.Figure{{Issuer: "ACME", Metric: "gross margin", Period: "2024-01-01/2024-12-31", Value: decimal.RequireFromString("0.4"), Unit: "pure", Source: "xbrl"}},
		Gaps:    []validator.Gap{{What: "BOLT's outlook", Why: "not stated in the filings"}},
		Notes:   []string{"synthesis fell back to rules: 3 replies rejected; the rules synthesizer wrote this answer"},
		Budget:  executor.BudgetReport{Used: map[string]json.Number{"calls": "9"}},
	}
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, markdownResult()); err != nil {
		t.Fatal(err)
	}
	want := "**Status:** `partial`\n" +
		"\n" +
		"Run `run-20250101-000000-abcd1234` (auto → model mode, class comparison, 147 ms)\n" +
		"\n" +
		"Gross margin fell to 40% [1].\\\n" +
		"\\# Not a heading; see [2].\n" +
		"\n" +
		"R&D rose \\*sharply\\* [1].\n" +
		"\n" +
		"## Sources\n" +
		"\n" +
		"1. **ACME**, 10-K, period end 2024-12-31, Item 7, page 23, evidence `E1a2b`\n" +
		"\n" +
		"   > Gross margin decreased to 40.0% due to \\*higher\\* component_costs and \\[freight](http://x.test).\\\n" +
		"   > 2024. was a year of \\<b>change\\</b> \\&amp; more \\| less \\\\\n" +
		"\n" +
		"2. **BOLT**, 10-Q, period end 2024-06-30, Item 2, no page, evidence `E3c4d`\n" +
		"\n" +
		"   > \\> quoted\\\n" +
		"   > \\- listed\\\n" +
		"   >     indented   spaces\n" +
		"   >\n" +
		"   > ===\\\n" +
		"   > \\_under\\_ \\`code\\` \\~strike\\~\n" +
		"\n" +
		"## Figures\n" +
		"\n" +
		"| Issuer | Metric | Period | Value | Unit | Source |\n" +
		"|---|---|---|---:|---|---|\n" +
		"| ACME | gross margin | 2024-01-01/2024-12-31 | 0.4 | pure | xbrl |\n" +
		"\n" +
		"## Gaps\n" +
		"\n" +
		"- BOLT's outlook: not stated in the filings\n" +
		"\n" +
		"## Notes\n" +
		"\n" +
		"- synthesis fell back to rules: 3 replies rejected; the rules synthesizer wrote this answer\n" +
		"\n" +
		"*Budget used:* calls=9\n"
	if got := buf.String(); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
	// Every excerpt reads back whole from its quote.
	for _, c := range markdownResult().Citations {
		if got := quotedText(t, buf.String(), c.Index); got != c.Excerpt {
			t.Errorf("citation [%d] reads back as\n%q\nwant\n%q", c.Index, got, c.Excerpt)
		}
	}
}

// TestMarkdownBlockKeepsText: what Markdown shows of a quoted block is the
// text, character for character, each newline a line break.
func TestMarkdownBlockKeepsText(t *testing.T) {
	for _, text := range []string{
		"plain sentence, nothing to escape: 40.5% of $1,234 million",
		"snake_case stays; _emphasis_ does not; __strong__ neither; **bold** and `code`",
		"[1] is a marker, [1](x) a link, [a] text, ![img](y), [^1] a footnote",
		"# heading\n## heading\n#hashtag\n> quote\n>> nested\n- item\n+ item\n-5% change\n1. first\n2) second\n2024. year\n---\n***\n___\n===",
		"<div>html</div> <!-- comment --> <https://x.test> a < b and c > d",
		"&amp; &#169; &#xA9; &copy; R&D AT&T & more &;",
		"a | b\n--- | ---\nc | d",
		"trailing backslash \\\nescaped \\* star \\n newline \\\\ two",
		"    four spaces\n\tone tab\n  two spaces",
		"line one\r\nline two\rline three\n\n\nafter two blank lines\n   \nafter a blank one",
		"~~strike~~ ~one~ $x$ {braces} (parens) \"quotes\" 'single' @at",
		"“_curly_” café_au_lait naïve_",
	} {
		md := mdBlock(text, "> ")
		if got, want := readQuote(md, "> "), expectedText(text); got != want {
			t.Errorf("%q\nquoted as\n%s\nreads back as %q", text, md, got)
		}
	}
}

func FuzzMarkdownBlock(f *testing.F) {
	f.Add("Gross margin *fell* [1].\n# 2024. <b>&amp;")
	f.Add("\\\n\\\\\n    code\n\n- a")
	f.Fuzz(func(t *testing.T, text string) {
		if strings.ContainsRune(text, 0) {
			return
		}
		md := mdBlock(text, "> ")
		if got, want := readQuote(md, "> "), expectedText(text); got != want {
			t.Errorf("%q\nquoted as\n%s\nreads back as %q", text, md, got)
		}
	})
}

// expectedText is what a reader of the Markdown sees of text: every
// character, lines split at any line ending, and a line of blanks empty.
func expectedText(text string) string {
	lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// readQuote undoes what Markdown undoes of a block mdBlock wrote after
// prefix: the prefix, the hard break at the end of a line, the entity
// that stands for a first blank, and backslash escapes of punctuation (a
// backslash before anything else is a backslash).
func readQuote(md, prefix string) string {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if l == strings.TrimRight(prefix, " ") {
			lines[i] = ""
			continue
		}
		l = strings.TrimPrefix(l, prefix)
		if n := len(l) - len(strings.TrimRight(l, "\\")); n%2 == 1 {
			l = l[:len(l)-1]
		}
		first := ""
		if s, ok := strings.CutPrefix(l, "&#32;"); ok {
			first, l = " ", s
		} else if s, ok := strings.CutPrefix(l, "&#9;"); ok {
			first, l = "\t", s
		}
		var b strings.Builder
		b.WriteString(first)
		for j := 0; j < len(l); j++ {
			if l[j] == '\\' && j+1 < len(l) && isASCIIPunct(l[j+1]) {
				j++
			}
			b.WriteByte(l[j])
		}
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n")
}

// quotedText is the text of citation n's quote in a markdown report.
func quotedText(t *testing.T, md string, n int) string {
	t.Helper()
	var quote []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, strconv.Itoa(n)+". "):
			in = true
		case in && strings.HasPrefix(l, "   >"):
			quote = append(quote, strings.TrimPrefix(l, "   "))
		case in && len(quote) > 0:
			return readQuote(strings.Join(quote, "\n"), "> ")
		}
	}
	if len(quote) == 0 {
		t.Fatalf("no quote for citation [%d] in\n%s", n, md)
	}
	return readQuote(strings.Join(quote, "\n"), "> ")
}

// TestReportRunLine: the text report's run line names the mode that ran,
// auto's choice of it, and the question's class.
func TestReportRunLine(t *testing.T) {
	for _, tt := range []struct {
		requested, mode ledger.Mode
		class           string
		want            string
	}{
		{executor.ModeAuto, ledger.ModeModel, "comparison", "Run:    r1 (auto → model mode, class comparison, 147 ms)\n"},
		{executor.ModeAuto, ledger.ModeBaseline, "outlook", "Run:    r1 (auto → baseline mode, class outlook, 147 ms)\n"},
		{"", ledger.ModeRules, "fact", "Run:    r1 (rules mode, class fact, 147 ms)\n"},
		{"", ledger.ModeRules, "", "Run:    r1 (rules mode, 147 ms)\n"}, // recorded before results named the class
	} {
		var buf bytes.Buffer
		r := &executor.Result{RunID: "r1", Status: ledger.StatusSupported, Mode: tt.mode, RequestedMode: tt.requested, Class: tt.class, ElapsedMS: 147}
		if err := writeReport(&buf, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), tt.want) {
			t.Errorf("report:\n%s\nwant the line %q", buf.String(), tt.want)
		}
	}
}
