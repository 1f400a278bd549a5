package corpus

import (
	"errors"
	"fmt"
	"html"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// ixDoc wraps body in an inline-XBRL document whose hidden header defines
// the contexts and units the fixtures use, plus text that must not show.
func ixDoc(body string) string {
	return `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<head><title>HEADTITLE</title><style>p { color: red }</style></head>
<body><div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:DocumentType" contextRef="FY">HIDDENTEXT</ix:nonNumeric>
<ix:nonFraction name="dei:EntityCommonStockSharesOutstanding" contextRef="NOW" unitRef="shares" decimals="0">15,115,823</ix:nonFraction>
</ix:hidden><ix:references>REFERENCES</ix:references><ix:resources>
<xbrli:context id="FY"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000320193</xbrli:identifier></xbrli:entity>
 <xbrli:period><xbrli:startDate>2023-10-01</xbrli:startDate><xbrli:endDate>2024-09-28</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:context id="NOW"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000320193</xbrli:identifier></xbrli:entity>
 <xbrli:period><xbrli:instant>2024-09-28</xbrli:instant></xbrli:period></xbrli:context>
<xbrli:context id="FY_iPhone"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000320193</xbrli:identifier>
 <xbrli:segment><xbrldi:explicitMember dimension="srt:ProductOrServiceAxis">us-gaap:ProductMember</xbrldi:explicitMember>
 <xbrldi:explicitMember dimension="srt:StatementGeographicalAxis"> country:US </xbrldi:explicitMember></xbrli:segment></xbrli:entity>
 <xbrli:period><xbrli:startDate>2023-10-01</xbrli:startDate><xbrli:endDate>2024-09-28</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
<xbrli:unit id="shares"><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unit>
<xbrli:unit id="pure"><xbrli:measure>xbrli:pure</xbrli:measure></xbrli:unit>
<xbrli:unit id="usdPerShare"><xbrli:divide><xbrli:unitNumerator><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unitNumerator>
 <xbrli:unitDenominator><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unitDenominator></xbrli:divide></xbrli:unit>
</ix:resources></ix:header></div>
` + body + "\n</body></html>"
}

// wantFact is an expected fact. shown is Text[Start:End]; "" means the fact
// is not displayed (Start == End == -1).
type wantFact struct {
	concept, value, unit, decimals, context string
	start, end                              string // "" for none; dates as 2006-01-02
	instant                                 bool
	dims                                    map[string]string
	shown                                   string
}

func ixDate(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// The hidden header fact every ixDoc has.
var headerFact = wantFact{concept: "dei:EntityCommonStockSharesOutstanding", value: "15115823",
	unit: "shares", decimals: "0", context: "NOW", end: "2024-09-28", instant: true}

func TestParseHTML(t *testing.T) {
	for _, tt := range []struct {
		name  string
		html  string
		text  string
		facts []wantFact // in document order; nil to skip the check
	}{{
		name: "table cells with $, parentheses and percent",
		html: ixDoc(`<table>
<tr><td/><td colspan="3">2024</td><td colspan="3">2023</td></tr>
<tr><td>Total net sales</td><td>$</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal">391,035</ix:nonFraction>&#160;</td><td> </td>
 <td>$</td><td>(</td><td><ix:nonFraction name="us-gaap:NetIncomeLoss" contextRef="FY" unitRef="usd" decimals="-6" scale="6" sign="-">1,234</ix:nonFraction></td><td>)</td>
 <td>2</td><td>%</td><td style="display:none">ghost</td><td>&#160;</td></tr>
<tr><td>Margin</td><td>(3)</td><td>%</td><td>$(</td><td>5</td><td>)</td><td>—</td></tr>
</table>`),
		text: "2024 | 2023\nTotal net sales | 391,035 | (1,234) | 2%\nMargin | (3)% | (5) | —\n",
		facts: []wantFact{headerFact,
			{concept: "us-gaap:Revenues", value: "391035000000", unit: "USD", decimals: "-6", context: "FY",
				start: "2023-10-01", end: "2024-09-28", shown: "391,035"},
			{concept: "us-gaap:NetIncomeLoss", value: "-1234000000", unit: "USD", decimals: "-6", context: "FY",
				start: "2023-10-01", end: "2024-09-28", shown: "1,234"},
		},
	}, {
		name: "header, head, script, style and display:none dropped",
		html: ixDoc(`<script>var HIDDEN = 1;</script><style>.x{}</style>
<div style="color:red; DISPLAY : None !important">secret block</div>
<p>Visible<span style="display:none"> secret inline</span> text</p>
<p hidden="">hidden attribute</p>
<div style="display:none"><p>nested</p><ix:nonFraction name="us-gaap:Assets" contextRef="NOW" unitRef="usd" decimals="-6" scale="6">5</ix:nonFraction></div>`),
		text: "Visible text\n",
		facts: []wantFact{headerFact,
			{concept: "us-gaap:Assets", value: "5000000", unit: "USD", decimals: "-6", context: "NOW",
				end: "2024-09-28", instant: true},
		},
	}, {
		name: "scale, sign, nil, dash, words and comma decimal",
		html: ixDoc(`<p>Sales were $<ix:nonFraction name="a:Billions" contextRef="FY" unitRef="usd" decimals="-8" scale="9">1.5</ix:nonFraction> billion;
loss <ix:nonFraction name="a:Loss" contextRef="FY" unitRef="usd" decimals="-6" scale="6" sign="-">12</ix:nonFraction>;
nil <ix:nonFraction name="a:Nil" contextRef="FY" unitRef="usd" xsi:nil="true"/>;
dash <ix:nonFraction name="a:Dash" contextRef="FY" unitRef="usd" decimals="-6" scale="6">&#8212;</ix:nonFraction>;
fixed <ix:nonFraction name="a:Fixed" contextRef="FY" unitRef="usd" format="ixt:fixed-zero" decimals="INF">none</ix:nonFraction>;
words <ix:nonFraction name="a:Words" contextRef="FY" unitRef="pure" format="ixt-sec:numwordsen" decimals="INF">twenty-one</ix:nonFraction>
and <ix:nonFraction name="a:No" contextRef="FY" unitRef="pure" format="ixt-sec:numwordsen" decimals="INF">no</ix:nonFraction>;
rate <ix:nonFraction name="a:Rate" contextRef="FY" unitRef="pure" decimals="3" scale="-2">21.5</ix:nonFraction>%;
euro <ix:nonFraction name="a:Euro" contextRef="FY" unitRef="usd" format="ixt:num-comma-decimal" decimals="1">1.234,5</ix:nonFraction>.</p>`),
		text: "Sales were $1.5 billion; loss 12; nil ; dash —; fixed none; words twenty-one and no; rate 21.5%; euro 1.234,5.\n",
		facts: []wantFact{headerFact,
			{concept: "a:Billions", value: "1500000000", unit: "USD", decimals: "-8", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "1.5"},
			{concept: "a:Loss", value: "-12000000", unit: "USD", decimals: "-6", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "12"},
			{concept: "a:Dash", value: "0", unit: "USD", decimals: "-6", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "—"},
			{concept: "a:Fixed", value: "0", unit: "USD", decimals: "INF", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "none"},
			{concept: "a:Words", value: "21", unit: "pure", decimals: "INF", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "twenty-one"},
			{concept: "a:No", value: "0", unit: "pure", decimals: "INF", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "no"},
			{concept: "a:Rate", value: "0.215", unit: "pure", decimals: "3", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "21.5"},
			{concept: "a:Euro", value: "1234.5", unit: "USD", decimals: "1", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "1.234,5"},
		},
	}, {
		name: "dimensions, instant, duration and divided unit",
		html: ixDoc(`<p>iPhone <ix:nonFraction name="us-gaap:Revenues" contextRef="FY_iPhone" unitRef="usd" decimals="-6" scale="6">201,183</ix:nonFraction>,
cash <ix:nonFraction name="us-gaap:Cash" contextRef="NOW" unitRef="usd" decimals="-6" scale="6">29,943</ix:nonFraction>,
EPS <ix:nonFraction name="us-gaap:EarningsPerShareBasic" contextRef="FY" unitRef="usdPerShare" decimals="2">6.11</ix:nonFraction>,
unknown <ix:nonFraction name="a:Orphan" contextRef="nowhere" unitRef="nounit">7</ix:nonFraction></p>`),
		text: "iPhone 201,183, cash 29,943, EPS 6.11, unknown 7\n",
		facts: []wantFact{headerFact,
			{concept: "us-gaap:Revenues", value: "201183000000", unit: "USD", decimals: "-6", context: "FY_iPhone",
				start: "2023-10-01", end: "2024-09-28", shown: "201,183",
				dims: map[string]string{"srt:ProductOrServiceAxis": "us-gaap:ProductMember", "srt:StatementGeographicalAxis": "country:US"}},
			{concept: "us-gaap:Cash", value: "29943000000", unit: "USD", decimals: "-6", context: "NOW",
				end: "2024-09-28", instant: true, shown: "29,943"},
			{concept: "us-gaap:EarningsPerShareBasic", value: "6.11", unit: "USD/shares", decimals: "2", context: "FY",
				start: "2023-10-01", end: "2024-09-28", shown: "6.11"},
			{concept: "a:Orphan", value: "7", context: "nowhere", shown: "7"},
		},
	}, {
		name: "CSS page breaks; bare hr is a rule",
		html: ixDoc(`<div style="page-break-before:always"></div><p>one</p>
<div style="page-break-after: always"></div><hr style="page-break-after:always"/>
<p>two</p><hr/><p>still two</p>
<div style="break-before: page">three</div><div style="display:none;page-break-after:always"></div>
<p style="page-break-after:always">four</p>`),
		text:  "one\n\f\ntwo\nstill two\n\f\nthree\nfour\n",
		facts: []wantFact{headerFact},
	}, {
		name:  "hr breaks pages when the document has no CSS breaks",
		html:  `<html><body><p>one</p><hr><p>two</p><hr noshade><hr><p>three</p><hr></body></html>`,
		text:  "one\n\f\ntwo\n\f\nthree\n",
		facts: []wantFact{},
	}, {
		name: "nested ix elements",
		html: ixDoc(`<ix:nonNumeric name="us-gaap:PolicyTextBlock" contextRef="FY" escape="true"><div>Par value
$<ix:nonFraction name="a:Par" contextRef="NOW" unitRef="usdPerShare" decimals="INF"><ix:nonFraction name="a:ParToo" contextRef="FY" unitRef="usdPerShare" decimals="INF"> 0.00001 </ix:nonFraction></ix:nonFraction> per share.</div>
<div>Shares <b><ix:nonFraction name="a:Shares" contextRef="NOW" unitRef="shares" decimals="-3" scale="3"><span>15,116</span>,786</ix:nonFraction></b></div></ix:nonNumeric>`),
		text: "Par value $ 0.00001 per share.\nShares 15,116,786\n",
		facts: []wantFact{headerFact,
			{concept: "a:Par", value: "0.00001", unit: "USD/shares", decimals: "INF", context: "NOW", end: "2024-09-28", instant: true, shown: "0.00001"},
			{concept: "a:ParToo", value: "0.00001", unit: "USD/shares", decimals: "INF", context: "FY", start: "2023-10-01", end: "2024-09-28", shown: "0.00001"},
			{concept: "a:Shares", value: "15116786000", unit: "shares", decimals: "-3", context: "NOW", end: "2024-09-28", instant: true, shown: "15,116,786"},
		},
	}, {
		name:  "entities and odd white space",
		html:  `<html><body><p>AT&amp;T&#160;&nbsp;Inc.&#x2003;&#8212; &lt;b&gt; caf&eacute;&#8203;s &#12;x</p></body></html>`,
		text:  "AT&T Inc. — <b> café s x\n",
		facts: []wantFact{},
	}, {
		name: "blocks end lines, inline elements do not, left padding is a space",
		html: `<html><body><h1>Item <span>1.</span> Business</h1><div>Head<b>ing</b><div>inner</div>tail</div>
<p>Para <a href="#x">link</a> <i>it</i><font>alic</font></p><ul><li>one</li><li>two</li></ul>line<br/>break<br>again
<p>unclosed<p>paragraphs<div>block</div>
<div><span>&#8226;</span><span style="padding-left:19pt">Facebook.</span></div><div>Item 1.<span style="PADDING-LEFT: 0pt">Business</span></div></body></html>`,
		text:  "Item 1. Business\nHeading\ninner\ntail\nPara link italic\none\ntwo\nline\nbreak\nagain\nunclosed\nparagraphs\nblock\n• Facebook.\nItem 1.Business\n",
		facts: []wantFact{},
	}, {
		name: "cells: blocks become spaces, XHTML empty cells, implied ends",
		html: `<html><body><table><tr><td><div>Net sales</div><div>Products</div></td><td/><td style="display:none"/><td>1<br/>2</td></tr>
<tr><td>a<td>b<tr><td>c</table><pre>line one
  line   two</pre><table><tr><td>outer<table><tr><td>in</td><td>ner</td></tr></table>cell</td><td>x</td></tr></table></body></html>`,
		text:  "Net sales Products | 1 2\na | b\nc\nline one\nline two\nouter in ner cell | x\n",
		facts: []wantFact{},
	}, {
		name:  "self-closing script does not swallow the document",
		html:  `<html><head><script src="x.js"/><title/></head><body><p>kept</p></body></html>`,
		text:  "kept\n",
		facts: []wantFact{},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseHTML(strings.NewReader(tt.html))
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.text {
				t.Errorf("text:\n got %q\nwant %q", got.Text, tt.text)
			}
			if Canonicalize(got.Text) != got.Text {
				t.Errorf("text is not canonical: %q", got.Text)
			}
			if tt.facts != nil {
				checkHTMLFacts(t, got, tt.facts)
			}
		})
	}
}

func checkHTMLFacts(t *testing.T, got *ParsedHTML, want []wantFact) {
	t.Helper()
	if len(got.Facts) != len(want) {
		for _, f := range got.Facts {
			t.Logf("got %s %s", f.Concept, f.Value)
		}
		t.Fatalf("%d facts, want %d", len(got.Facts), len(want))
	}
	for i, w := range want {
		f := got.Facts[i]
		v := decimal.RequireFromString(w.value)
		if f.Concept != w.concept || !f.Value.Equal(v) || f.Unit != w.unit || f.Decimals != w.decimals ||
			f.ContextID != w.context || !f.PeriodStart.Equal(ixDate(w.start)) || !f.PeriodEnd.Equal(ixDate(w.end)) ||
			f.Instant != w.instant || !maps.Equal(f.Dimensions, w.dims) || f.DocumentID != "" {
			t.Errorf("fact %d = %+v, want %+v", i, f, w)
		}
		if !f.PeriodEnd.IsZero() && f.PeriodEnd.Location() != time.UTC {
			t.Errorf("fact %d: period end in %v, want UTC", i, f.PeriodEnd.Location())
		}
		if w.shown == "" {
			if f.Start != -1 || f.End != -1 {
				t.Errorf("fact %d (%s) not displayed: span [%d,%d), want [-1,-1)", i, f.Concept, f.Start, f.End)
			}
			continue
		}
		if f.Start < 0 || f.Start > f.End || f.End > len(got.Text) {
			t.Errorf("fact %d (%s): span [%d,%d) outside the text", i, f.Concept, f.Start, f.End)
			continue
		}
		if s := got.Text[f.Start:f.End]; s != w.shown {
			t.Errorf("fact %d (%s): Text[Start:End] = %q, want %q", i, f.Concept, s, w.shown)
		}
	}
}

func TestParseHTMLErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want error
	}{
		{"empty", "", ErrNotHTML},
		{"plain text", "Item 7. Management's Discussion\nRevenue grew.", ErrNotHTML},
		{"pdf", "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n\x00\x01\x02", ErrNotHTML},
		{"json", `{"html": "<b>not a document</b>"}`, ErrNotHTML},
		{"no body text", `<html><head><title>Title only</title></head><body> &#160; <br/></body></html>`, ErrEmptyHTML},
		{"only hidden text", ixDoc(`<div style="display:none">x</div>`), ErrEmptyHTML},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseHTML(strings.NewReader(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "corpus: html: ") {
				t.Errorf("error %q does not say where it comes from", err)
			}
		})
	}
	boom := errors.New("disk on fire")
	if _, err := ParseHTML(&htmlReadError{data: "<html><body>abc", err: boom}); !errors.Is(err, boom) {
		t.Errorf("read error: err = %v, want %v", err, boom)
	}
}

type htmlReadError struct {
	data string
	err  error
}

func (r *htmlReadError) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// edgarDir locates the sample EDGAR filings: $CORPUS/edgar, by default
// ../../shared/corpus/edgar; it skips the test when they are missing.
func edgarDir(t testing.TB) string {
	t.Helper()
	root := os.Getenv("CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "shared", "corpus")
	}
	dir := filepath.Join(root, "edgar")
	if files, _ := filepath.Glob(filepath.Join(dir, "*.html")); len(files) == 0 {
		t.Skipf("no EDGAR HTML filings in %s (set CORPUS to the sample corpus)", dir)
	}
	return dir
}

var (
	rawNonFraction = regexp.MustCompile(`(?s)<ix:nonFraction\b([^>]*?)(/?)>`)
	rawTag         = regexp.MustCompile(`(?s)<[^>]*>`)
	rawCSSBreak    = regexp.MustCompile(`page-break-(?:after|before):always`)
	rawHeaderCIK   = regexp.MustCompile(`<xbrli:identifier scheme="[^"]*">([^<]+)<`)
)

// rawDisplayedFacts reads, straight from the HTML with regular expressions, the
// displayed text of every non-nil ix:nonFraction outside the ix:header, in
// document order: an independent check of the parser's spans.
func rawDisplayedFacts(raw string) []string {
	headerEnd := strings.Index(raw, "</ix:header>")
	nested := rawNestedSame(raw)
	var shown []string
	for _, m := range rawNonFraction.FindAllStringSubmatchIndex(raw, -1) {
		if m[0] < headerEnd || strings.Contains(raw[m[2]:m[3]], `xsi:nil="true"`) || nested[m[0]] {
			continue
		}
		inner := raw[m[1]:]
		inner = inner[:strings.Index(inner, "</ix:nonFraction>")]
		shown = append(shown, strings.Join(strings.Fields(html.UnescapeString(rawTag.ReplaceAllString(inner, ""))), " "))
	}
	return shown
}

// rawNestedSame returns the offsets of the ix:nonFraction tags nested in
// an open one of the same name and context: the same fact tagged twice,
// which the parser keeps once.
func rawNestedSame(raw string) map[int]bool {
	out := map[int]bool{}
	attr := func(tag, name string) string {
		m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(tag)
		if m == nil {
			return ""
		}
		return m[1]
	}
	var open []string
	for _, m := range rawFactTag.FindAllStringSubmatchIndex(raw, -1) {
		if m[2] != m[3] { // a closing tag
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			continue
		}
		if m[6] != m[7] { // self-closing
			continue
		}
		tag := raw[m[4]:m[5]]
		id := attr(tag, "name") + "\x00" + attr(tag, "contextRef")
		if slices.Contains(open, id) {
			out[m[0]] = true
		}
		open = append(open, id)
	}
	return out
}

// rawFactTag matches an opening, self-closing or closing ix:nonFraction tag.
var rawFactTag = regexp.MustCompile(`(?s)<(/?)ix:nonFraction\b([^>]*?)(/?)>`)

// displayedReadsAs reports whether a displayed value, times some power of ten, is
// the magnitude of the fact's value.
func displayedReadsAs(shown string, v decimal.Decimal) bool {
	if shown == "—" {
		return v.IsZero()
	}
	if n, ok := parseNumberWords(shown); ok {
		return v.Abs().Equal(decimal.NewFromInt(n))
	}
	d, err := decimal.NewFromString(strings.ReplaceAll(shown, ",", ""))
	if err != nil {
		return false
	}
	for k := int32(-12); k <= 12; k++ {
		if d.Shift(k).Equal(v.Abs()) {
			return true
		}
	}
	return false
}

type edgarFile struct {
	raw    string
	parsed *ParsedHTML
}

func parseEdgarFile(t *testing.T, path string) edgarFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseHTML(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return edgarFile{raw: string(raw), parsed: parsed}
}

// TestParseHTMLCorpus holds ParseHTML to the sample filings: canonical text,
// one fact per tagged value with a span on the value as displayed, nothing of
// the hidden header in the text, and one page per page-break marker.
func TestParseHTMLCorpus(t *testing.T) {
	dir := edgarDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			c := parseEdgarFile(t, path)
			text := c.parsed.Text
			if Canonicalize(text) != text {
				t.Fatal("text is not canonical")
			}

			shown := rawDisplayedFacts(c.raw)
			var visible []Fact
			for _, f := range c.parsed.Facts {
				if f.Start == -1 && f.End == -1 {
					continue
				}
				if f.Start < 0 || f.Start > f.End || f.End > len(text) {
					t.Fatalf("%s: span [%d,%d) outside the text", f.Concept, f.Start, f.End)
				}
				visible = append(visible, f)
			}
			all, nils := 0, 0
			for _, m := range rawNonFraction.FindAllStringSubmatch(c.raw, -1) {
				all++
				if strings.Contains(m[1], `xsi:nil="true"`) {
					nils++
				}
			}
			nested := len(rawNestedSame(c.raw))
			if len(c.parsed.Facts) != all-nils-nested {
				t.Errorf("%d facts, want %d (%d ix:nonFraction, %d nil, %d tagged again inside themselves)", len(c.parsed.Facts), all-nils-nested, all, nils, nested)
			}
			if len(visible) != len(shown) {
				t.Fatalf("%d displayed facts, the HTML displays %d", len(visible), len(shown))
			}
			for i, f := range visible {
				got := text[f.Start:f.End]
				if got != shown[i] {
					t.Errorf("fact %d (%s): Text[Start:End] = %q, HTML displays %q", i, f.Concept, got, shown[i])
				} else if !displayedReadsAs(got, f.Value) {
					t.Errorf("fact %d (%s): displayed %q does not read as %s", i, f.Concept, got, f.Value)
				}
			}

			for _, leak := range []string{"iso4217:", "xbrli:", "http://www.sec.gov/CIK"} {
				if strings.Contains(text, leak) {
					t.Errorf("text contains %q from the ix:header", leak)
				}
			}
			if m := rawHeaderCIK.FindStringSubmatch(c.raw); m == nil {
				t.Error("no entity identifier in the header")
			} else if strings.Contains(text, m[1]) {
				t.Errorf("text contains the header's CIK %s", m[1])
			}

			pages := strings.Count(text, "\f") + 1
			if want := len(rawCSSBreak.FindAllString(c.raw, -1)) + 1; pages != want {
				t.Errorf("%d pages, want %d (one per CSS page break, plus one)", pages, want)
			}
			if pages < 20 || pages > 200 {
				t.Errorf("%d pages: not a plausible 10-K or 10-Q", pages)
			}
			t.Logf("%d bytes of text, %d pages, %d facts (%d displayed)", len(text), pages, len(c.parsed.Facts), len(visible))
		})
	}
}

// findHTMLFact returns a dimensionless duration fact of concept over
// [start, end], failing the test unless there is one and all such facts
// (a value is often tagged in several places) agree.
func findHTMLFact(t *testing.T, facts []Fact, concept, start, end string) Fact {
	t.Helper()
	var found []Fact
	for _, f := range facts {
		if f.Concept == concept && len(f.Dimensions) == 0 && !f.Instant &&
			f.PeriodStart.Equal(ixDate(start)) && f.PeriodEnd.Equal(ixDate(end)) {
			found = append(found, f)
		}
	}
	if len(found) == 0 {
		t.Fatalf("no %s fact for %s..%s", concept, start, end)
	}
	for _, f := range found[1:] {
		if !f.Value.Equal(found[0].Value) {
			t.Fatalf("%s for %s..%s: conflicting values %s and %s", concept, start, end, found[0].Value, f.Value)
		}
	}
	return found[0]
}

func TestParseHTMLKnownValues(t *testing.T) {
	dir := edgarDir(t)
	for _, tt := range []struct {
		file, concept, start, end, value string
	}{
		{"nvda-10-k-2023-02-24.html", "us-gaap:Revenues", "2022-01-31", "2023-01-29", "26974000000"},
		{"nvda-10-k-2023-02-24.html", "us-gaap:GrossProfit", "2022-01-31", "2023-01-29", "15356000000"},
		{"aapl-10-k-2024-11-01.html", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "2023-10-01", "2024-09-28", "391035000000"},
		{"aapl-10-k-2024-11-01.html", "us-gaap:GrossProfit", "2023-10-01", "2024-09-28", "180683000000"},
	} {
		t.Run(tt.file+"/"+tt.concept, func(t *testing.T) {
			c := parseEdgarFile(t, filepath.Join(dir, tt.file))
			f := findHTMLFact(t, c.parsed.Facts, tt.concept, tt.start, tt.end)
			if !f.Value.Equal(decimal.RequireFromString(tt.value)) || f.Unit != "USD" {
				t.Errorf("%s = %s %s, want %s USD", tt.concept, f.Value, f.Unit, tt.value)
			}
		})
	}
}

// TestParseHTMLAppleLayout checks the rendering of one filing where the
// right answer is known: statement rows read as one line, and each page ends
// with its printed footer (the cover and contents pages are unnumbered).
func TestParseHTMLAppleLayout(t *testing.T) {
	c := parseEdgarFile(t, filepath.Join(edgarDir(t), "aapl-10-k-2024-11-01.html"))
	text := c.parsed.Text
	for _, line := range []string{
		"\nTotal net sales | 391,035 | 383,285 | 394,328\n",
		"\nTotal net sales | 391,035 | 2% | 383,285 | (3)% | 394,328\n",
		"\nOther income/(expense), net | 269 | (565) | (334)\n",
		"\nProceeds from issuance of term debt, net | — | 5,228 | 5,465\n",
		"\nCONSOLIDATED STATEMENTS OF OPERATIONS\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("text lacks the line %q", line)
		}
	}
	pages := strings.Split(text, "\f\n")
	if len(pages) != 59 {
		t.Fatalf("%d pages, want 59", len(pages))
	}
	for i, page := range pages[2:] {
		if footer := fmt.Sprintf("\nApple Inc. | 2024 Form 10-K | %d\n", i+1); !strings.HasSuffix(page, footer) {
			t.Errorf("page %d does not end with footer %q", i+3, footer)
		}
	}
}

// BenchmarkParseHTML parses each sample filing:
//
//	go test ./corpus/ -run XXX -bench ParseHTML -benchmem
func BenchmarkParseHTML(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(edgarDir(b), "*.html"))
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := ParseHTML(strings.NewReader(string(raw))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleParseHTML() {
	doc := `<html><body>
<p>Net sales grew.</p>
<table><tr><td>Total net sales</td><td>$</td><td><ix:nonFraction name="us-gaap:Revenues"
 contextRef="FY24" unitRef="usd" decimals="-6" scale="6">391,035</ix:nonFraction></td></tr></table>
<hr style="page-break-after:always"/><p>Next page</p>
</body></html>`
	parsed, err := ParseHTML(strings.NewReader(doc))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", parsed.Text)
	f := parsed.Facts[0]
	fmt.Println(f.Concept, f.Value, parsed.Text[f.Start:f.End])
	// Output:
	// "Net sales grew.\nTotal net sales | 391,035\n\f\nNext page\n"
	// us-gaap:Revenues 391035000000 391,035
}

// A fact tagged again and again inside itself is one fact, not one per
// tag; the same fact shown in two places is two.
func TestParseHTMLNestedFactOnce(t *testing.T) {
	const tag = `<ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="usd" decimals="-6" scale="6">`
	nested := strings.Repeat(tag, 5000) + "391,035" + strings.Repeat("</ix:nonFraction>", 5000)
	p, err := ParseHTML(strings.NewReader(ixDoc(`<p>Revenue was $` + nested + ` million; again $` + tag + `391,035</ix:nonFraction> million.</p>`)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range p.Facts {
		if f.Concept == "us-gaap:Revenues" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d revenue facts; want 2 (one per place shown)", n)
	}
}
