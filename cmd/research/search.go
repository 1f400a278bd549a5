package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ledgerline/research/corpus"
)

// listFlag collects a repeatable, comma-separated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("search", "QUERY [flags]",
		"Hybrid search: Postgres full text (or the embedded index) and vectors, fused by reciprocal\n"+
			"rank fusion (k = 60). With several tickers each is searched on its own and the results\n"+
			"interleaved, so one issuer cannot crowd out the others. A query of 12 words or more is read\n"+
			"as a question: its instructions are set aside, the fiscal years it names are searched first,\n"+
			"and tables whose row labels hold its words rank higher.", stderr)
	var sf storeFlags
	sf.register(fs)
	var tickers, years listFlag
	fs.Var(&tickers, "ticker", "restrict to these tickers (repeat or comma-separate)")
	fs.Var(&years, "fiscal-year", "restrict to these fiscal years (repeat or comma-separate)")
	form := fs.String("form", "", "restrict to a form (10-K, 10-Q)")
	section := fs.String("section", "", "restrict to an item (7, 1A, \"Item 7\")")
	k := fs.Int("k", 10, fmt.Sprintf("results (1-%d)", corpus.MaxK))
	mode := fs.String("mode", "hybrid", "hybrid, fulltext or vector")
	format := fs.String("format", "text", "text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("--format %q: want text or json", *format)
	}
	if *k < 1 || *k > corpus.MaxK {
		return fmt.Errorf("--k %d: want 1 to %d", *k, corpus.MaxK)
	}
	req := corpus.SearchRequest{
		Query: strings.Join(fs.Args(), " "),
		K:     *k,
		Mode:  corpus.SearchMode(*mode),
		Filter: corpus.Filter{
			Tickers: tickers,
			Form:    strings.ToUpper(*form),
			Section: *section,
		},
	}
	for _, y := range years {
		n, err := strconv.Atoi(y)
		if err != nil {
			return fmt.Errorf("--fiscal-year %q is not a year", y)
		}
		req.Filter.FiscalYears = append(req.Filter.FiscalYears, n)
	}
	store, emb, closeStore, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	results, err := corpus.NewSearcher(store, emb).Search(ctx, req)
	if err != nil {
		return err
	}
	if results == nil {
		results = []corpus.SearchResult{}
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Results []corpus.SearchResult `json:"results"`
		}{results})
	}
	if len(results) == 0 {
		fmt.Fprintln(stdout, "no results")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tSCORE\tTICKER\tFORM\tPERIOD\tSECTION\tPAGE\tCHUNK")
	for i, r := range results {
		page := "-"
		if r.Page > 0 {
			page = strconv.Itoa(r.Page)
		}
		fmt.Fprintf(tw, "%d\t%.4f\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, r.Score, r.Ticker, r.Form,
			r.PeriodEnd.Format(time.DateOnly), orDash(r.Section), page, r.ChunkID)
	}
	tw.Flush()
	fmt.Fprintln(stdout)
	for i, r := range results {
		fmt.Fprintf(stdout, "[%d] %s %s %s, %s [%d:%d]\n    %s\n\n", i+1, r.Ticker, r.Form, r.PeriodEnd.Format(time.DateOnly),
			orDash(r.Section), r.Start, r.End, snippet(r.Text, 400))
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// snippet shortens text to about n bytes on one line.
func snippet(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	return text[:cut] + " …"
}
