package bench

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/ledgerline/research/corpus"
)

// WriteText writes the report as tables.
func (r *ScaleReport) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("synthetic corpus: %d chunks in %d documents, %d tickers, %.1f MB of text (%d bytes a chunk on average)\n",
		r.Chunks, r.Documents, r.Tickers, float64(r.TextBytes)/1e6, r.TextBytes/int64(max(r.Chunks, 1)))
	ew.printf("vocabulary %d words, seed %d, embedder %s\n", r.VocabularyWords, r.Seed, r.Embedder)
	ew.printf("generate %s, embed %s (%.0f chunks/s), exact top %d of %d queries in Go %s\n\n",
		secs(r.Generate), secs(r.Embed), float64(r.Chunks)/max(r.Embed.Seconds(), 1e-9), r.K, r.Queries, secs(r.Exact))

	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STORE\tLOAD\tCHUNKS/S\tINDEX BUILD\tINDEX")
	for _, s := range r.Stores {
		build := "-"
		if s.IndexBuild > 0 {
			build = secs(s.IndexBuild)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\n", s.Store, secs(s.Load), float64(r.Chunks)/max(s.Load.Seconds(), 1e-9), build, s.Index)
	}
	tw.Flush()
	for _, s := range r.Stores {
		if len(s.Sizes) > 0 {
			ew.printf("%s sizes:", s.Store)
			for _, k := range sortedKeys(s.Sizes) {
				ew.printf(" %s %.1f MB", k, float64(s.Sizes[k])/1e6)
			}
			ew.printf("\n")
		}
	}

	ew.printf("\nlatency in ms: %d queries (%d filtered to one ticker), k=%d, each run once to warm, then timed once\n",
		r.Queries, r.FilteredQueries, r.K)
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "STORE\tMODE\tQUERIES\tN\tP50\tP95\tP99\tMEAN\tMAX\t")
	for _, s := range r.Stores {
		for _, m := range s.Latency {
			writeLatencyRow(tw, s.Store, string(m.Mode), m.Queries, m.Latency)
		}
	}
	tw.Flush()

	ew.printf("\nvector search recall@%d against exact search (mean over queries), with its latency in ms\n", r.K)
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "STORE\tSETTING\tRECALL UNFILTERED\tRECALL TICKER\tP50 UNFILTERED\tP95 UNFILTERED\tP50 TICKER\tP95 TICKER\t")
	for _, s := range r.Stores {
		for _, rr := range s.Recall {
			var plain, ticker Latency
			for _, m := range rr.Latency {
				switch m.Queries {
				case unfilteredQueries:
					plain = m.Latency
				case filteredQueries:
					ticker = m.Latency
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", s.Store, rr.Setting, rr.Unfiltered, rr.Filtered,
				ms(plain.P50), ms(plain.P95), ms(ticker.P50), ms(ticker.P95))
		}
	}
	tw.Flush()

	var ft bool
	for _, s := range r.Stores {
		ft = ft || len(s.FullText) > 0
	}
	if ft {
		ew.printf("\nfull-text candidates ranked per search (pgstore.Config.FullTextCandidates), settings alternating query by query;\n")
		ew.printf("latency in ms, and the mean share of the unbounded search's top %d each setting returns\n", r.K)
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "STORE\tSETTING\tMODE\tAGREEMENT\tP50\tP95\tP50 UNFILTERED\tP95 UNFILTERED\tP50 TICKER\tP95 TICKER\t")
		for _, s := range r.Stores {
			for _, f := range s.FullText {
				for _, mode := range []corpus.SearchMode{corpus.ModeFullText, corpus.ModeHybrid} {
					var all, plain, ticker Latency
					for _, m := range f.Latency {
						if m.Mode != mode {
							continue
						}
						switch m.Queries {
						case allQueries:
							all = m.Latency
						case unfilteredQueries:
							plain = m.Latency
						case filteredQueries:
							ticker = m.Latency
						}
					}
					agree := "-"
					if a, ok := f.Agreement[mode]; ok {
						agree = fmt.Sprintf("%.3f", a)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", s.Store, f.Setting, mode, agree,
						ms(all.P50), ms(all.P95), ms(plain.P50), ms(plain.P95), ms(ticker.P50), ms(ticker.P95))
				}
			}
		}
		tw.Flush()
	}
	return ew.err
}

// WriteText writes the report as a table.
func (r *SearchReport) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("%s: %d documents, %d chunks\n", r.Store, r.Documents, r.Chunks)
	n := 0
	if len(r.Latency) > 0 {
		n = r.Latency[0].Latency.N
	}
	ew.printf("latency in ms: %d distinct queries, %d timed searches per mode, k=%d, each query run once to warm first\n", r.Queries, n, r.K)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "MODE\tQUERIES\tN\tP50\tP95\tP99\tMEAN\tMAX\t")
	for _, m := range r.Latency {
		l := m.Latency
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", m.Mode, m.Queries, l.N, ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Mean), ms(l.Max))
	}
	tw.Flush()
	return ew.err
}

func writeLatencyRow(w io.Writer, store, mode, queries string, l Latency) {
	fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", store, mode, queries, l.N,
		ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Mean), ms(l.Max))
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// errWriter remembers the first write error, so that a report is written
// without checking every line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
