package configs_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/configs"
)

func TestEmbeddedIssuers(t *testing.T) {
	l, err := configs.Issuers()
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() < 10_000 {
		t.Fatalf("Len() = %d, want the SEC's full list", l.Len())
	}
	again, _ := configs.Issuers()
	if again != l {
		t.Error("Issuers() parsed the list twice")
	}
	tests := []struct {
		lookup string
		want   configs.Issuer
	}{
		{"NVDA", configs.Issuer{CIK: 1045810, Ticker: "NVDA", Title: "NVIDIA CORP"}},
		{"nflx", configs.Issuer{CIK: 1065280, Ticker: "NFLX", Title: "NETFLIX INC"}},
		{"$tsla", configs.Issuer{CIK: 1318605, Ticker: "TSLA", Title: "Tesla, Inc."}},
		{"BRK.B", configs.Issuer{CIK: 1067983, Ticker: "BRK-B", Title: "BERKSHIRE HATHAWAY INC"}},
		{"c", configs.Issuer{CIK: 831001, Ticker: "C", Title: "CITIGROUP INC"}},
	}
	for _, tt := range tests {
		got, ok := l.Lookup(tt.lookup)
		if !ok || got != tt.want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", tt.lookup, got, ok, tt.want)
		}
	}
	if _, ok := l.Lookup("XYZQ"); ok {
		t.Error("Lookup(XYZQ) found an issuer")
	}
	// Alphabet trades as GOOGL and GOOG; the SEC lists GOOGL first.
	var tickers []string
	for _, e := range l.ByCIK(1652044) {
		tickers = append(tickers, e.Ticker)
	}
	if !slices.Equal(tickers, []string{"GOOGL", "GOOG"}) {
		t.Errorf("ByCIK(Alphabet) = %v", tickers)
	}
	// The SEC lists the largest issuers first.
	if r := l.Rank(1045810); r < 0 || r > 20 {
		t.Errorf("Rank(NVIDIA) = %d", r)
	}
	if l.Rank(1) != -1 {
		t.Error("Rank of an unknown CIK is not -1")
	}
	n := 0
	for e := range l.All() {
		if e.CIK <= 0 || e.Ticker == "" || e.Title == "" {
			t.Fatalf("bad entry %+v", e)
		}
		n++
	}
	if n != l.Len() {
		t.Errorf("All() yielded %d entries, Len() = %d", n, l.Len())
	}
}

func TestLoadIssuers(t *testing.T) {
	l, err := configs.LoadIssuers(strings.NewReader(`{"1": {"cik_str": 2, "ticker": "bb", "title": "B Corp"},
		"0": {"cik_str": 1, "ticker": "AA", "title": "A Inc."}, "2": {"cik_str": 1, "ticker": "AA-P", "title": "A Inc."},
		"3": {"cik_str": 3, "ticker": "AA", "title": "Later"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for e := range l.All() {
		got = append(got, e.Ticker)
	}
	if !slices.Equal(got, []string{"AA", "BB", "AA-P"}) {
		t.Errorf("All() = %v, want the SEC's order, a repeated ticker once", got)
	}
	if l.Rank(1) != 0 || l.Rank(2) != 1 {
		t.Errorf("Rank = %d, %d", l.Rank(1), l.Rank(2))
	}
	for _, bad := range []string{
		``, `[]`, `{}`, `{"x": {"cik_str": 1, "ticker": "A", "title": "A"}}`,
		`{"0": {"cik_str": 0, "ticker": "A", "title": "A"}}`,
		`{"0": {"cik_str": "one", "ticker": "A", "title": "A"}}`,
		`{"0": {"cik_str": 1, "ticker": "", "title": "A"}}`,
		`{"0": {"cik_str": 1, "ticker": "A", "title": " "}}`,
	} {
		if _, err := configs.LoadIssuers(strings.NewReader(bad)); !errors.Is(err, configs.ErrIssuerList) {
			t.Errorf("LoadIssuers(%q) error = %v, want ErrIssuerList", bad, err)
		}
	}
}

func TestNormalizeTicker(t *testing.T) {
	for in, want := range map[string]string{"brk.b": "BRK-B", " $nflx ": "NFLX", "BF/B": "BF-B", "C": "C"} {
		if got := configs.NormalizeTicker(in); got != want {
			t.Errorf("NormalizeTicker(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzLoadIssuers(f *testing.F) {
	f.Add([]byte(`{"0": {"cik_str": 1, "ticker": "AA", "title": "A Inc."}}`))
	f.Add([]byte(`{"0": {"cik_str": 1.5, "ticker": "AA", "title": "A"}, "1": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := configs.LoadIssuers(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		for e := range l.All() {
			if e.CIK <= 0 || e.Ticker == "" || e.Title == "" {
				t.Fatalf("bad entry %+v", e)
			}
			if got, ok := l.Lookup(e.Ticker); !ok || got.CIK != e.CIK {
				t.Fatalf("Lookup(%q) = %+v, %v", e.Ticker, got, ok)
			}
		}
	})
}

func TestLoadIssuersFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, configs.IssuersFileName)
	if _, err := configs.LoadIssuersFile(path); !errors.Is(err, configs.ErrIssuerList) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	os.WriteFile(path, []byte(`{"0":{"cik_str":1000001,"ticker":"ACME","title":"Acme Widgets Inc."}}`), 0o644)
	l, err := configs.LoadIssuersFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := l.Lookup("acme"); !ok || e.CIK != 1000001 {
		t.Errorf("Lookup(acme) = %+v, %v", e, ok)
	}
	os.WriteFile(path, []byte(`{}`), 0o644)
	if _, err := configs.LoadIssuersFile(path); !errors.Is(err, configs.ErrIssuerList) || !strings.Contains(err.Error(), path) {
		t.Errorf("empty list: err = %v", err)
	}
}
