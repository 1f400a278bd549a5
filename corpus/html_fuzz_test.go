package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzParseHTML checks that no input makes ParseHTML panic, and that what it
// returns holds its promises: canonical text and fact spans inside it.
//
//	go test ./corpus/ -run XXX -fuzz FuzzParseHTML -fuzztime 30s -fuzzminimizetime 2s
//
// (The default minimization, up to a minute for each new input, stalls the
// fuzzer on seeds of a few KB.)
func FuzzParseHTML(f *testing.F) {
	for _, seed := range []string{
		ixDoc(`<table><tr><td>Total</td><td>$</td><td><ix:nonFraction name="a:B" contextRef="FY" unitRef="usd" scale="6" sign="-">1,234</ix:nonFraction></td><td>)</td><td>%</td></tr></table>`),
		ixDoc(`<ix:nonNumeric name="a:T" contextRef="FY"><div>x <ix:nonFraction name="a:N" contextRef="NOW" unitRef="usdPerShare" format="ixt-sec:numwordsen">two</ix:nonFraction></div></ix:nonNumeric>`),
		`<html><body><p>a</p><hr><p>b<div style="page-break-before:always">c</div></body></html>`,
		`<html><body><table><tr><td>a<table><tr><td>b</table><td>c</body>`,
		`<html><body><ix:nonFraction name="a" format="ixt:num-comma-decimal">1.2,3<td>x</td></ix:nonFraction>`,
		`<html><body><td><ix:nonFraction name="a"><tr>9</ix:nonFraction></tr>`,
		`<html><head><title>t</title><body><script/>x<style>y</style>z`,
		"<html><body>\f\r\n\u00a0\u200b\ufeff\xff\xfe<pre>a\n\nb</pre>",
		`<html><body><xbrli:context id="c"><xbrli:instant>2024-01-01T00:00:00</xbrli:instant></xbrli:context><ix:nonFraction contextRef="c" scale="99999999999">1</ix:nonFraction>`,
	} {
		f.Add([]byte(seed))
	}
	// A real filing's opening (namespaces) and a slice of a statement table,
	// cut mid-tag. Kept small: the fuzzer minimizes every new input it finds
	// interesting, and that is slow for large ones.
	if raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", "edgar", "aapl-10-q-2025-08-01.html")); err == nil {
		body := bytes.Index(raw, []byte("<body>"))
		table := bytes.Index(raw, []byte("CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS"))
		if body >= 0 && table >= 0 {
			f.Add(append(raw[:body+len("<body>"):body+len("<body>")], raw[table:min(len(raw), table+4000)]...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseHTML(bytes.NewReader(data))
		if err != nil {
			return
		}
		if got.Text == "" || Canonicalize(got.Text) != got.Text {
			t.Fatalf("text is not canonical: %q", got.Text)
		}
		if !utf8.ValidString(got.Text) {
			t.Fatalf("text is not UTF-8: %q", got.Text)
		}
		for _, fact := range got.Facts {
			if fact.Start == -1 && fact.End == -1 {
				continue
			}
			if fact.Start < 0 || fact.Start > fact.End || fact.End > len(got.Text) {
				t.Fatalf("fact %s: span [%d,%d) outside text of %d bytes", fact.Concept, fact.Start, fact.End, len(got.Text))
			}
		}
	})
}
