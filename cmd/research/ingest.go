package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ledgerline/research/corpus"
)

func runIngest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ingest", "(--manifest FILE | FILE... --ticker T --company C --form F --fiscal-year Y --period-end D [--filed D])",
		"Reads EDGAR inline-XBRL HTML, text with form-feed page breaks, and PDF (through pdftotext)\n"+
			"into canonical text; finds sections, cuts chunks, extracts XBRL facts, embeds and stores.\n"+
			"Ingesting the same files again changes nothing; the same filing in another format is\n"+
			"reported as a duplicate and not stored twice. A bad file or manifest line is reported\n"+
			"and the rest still ingests; the exit status is 1 when anything failed.", stderr)
	var sf storeFlags
	sf.register(fs)
	manifest := fs.String("manifest", "", "JSONL manifest: path, ticker, company, form, fiscal_year, period_end, filed")
	ticker := fs.String("ticker", "", "ticker of the FILE arguments")
	company := fs.String("company", "", "company of the FILE arguments")
	form := fs.String("form", "10-K", "form of the FILE arguments")
	fy := fs.Int("fiscal-year", 0, "fiscal year of the FILE arguments")
	periodEnd := fs.String("period-end", "", "period end (YYYY-MM-DD) of the FILE arguments")
	filed := fs.String("filed", "", "filing date (YYYY-MM-DD) of the FILE arguments")
	conc := fs.Int("concurrency", 4, "files read and embedded at once")
	quiet := fs.Bool("quiet", false, "no progress lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}

	var entries []corpus.ManifestEntry
	var bad []error
	switch {
	case *manifest != "" && fs.NArg() > 0:
		fmt.Fprintln(stderr, "research ingest: give --manifest or files, not both")
		return errUsage
	case *manifest != "":
		f, err := os.Open(*manifest)
		if err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
		entries, bad = corpus.ReadManifest(f, *manifest, filepath.Dir(*manifest))
		f.Close()
	case fs.NArg() > 0:
		for _, path := range fs.Args() {
			e, err := corpus.NewManifestEntry(path, *ticker, *company, *form, *fy, *periodEnd, *filed)
			if err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			entries = append(entries, e)
		}
	default:
		fs.Usage()
		return errUsage
	}
	for _, err := range bad {
		fmt.Fprintf(stderr, "skipped %v\n", err)
	}

	store, emb, closeStore, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	// A Postgres store may take a bulk load faster: its vector index is
	// built after the load when the table is empty or small.
	if b, ok := store.(interface{ BeginBulkLoad() }); ok {
		b.BeginBulkLoad()
	}
	in, err := corpus.NewIngester(store, emb)
	if err != nil {
		return err
	}
	opts := &corpus.IngestOpts{Concurrency: *conc}
	if !*quiet {
		opts.Progress = stderr
	}
	report, err := in.Ingest(ctx, entries, opts)
	if report != nil {
		printIngestSummary(stdout, report, len(bad))
	}
	if err != nil {
		return err
	}
	if report.Failed > 0 || len(bad) > 0 {
		return errors.New("some sources were not ingested (see above)")
	}
	return nil
}

func printIngestSummary(w io.Writer, r *corpus.IngestReport, badLines int) {
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(w, "ingested %d documents: %d chunks, %d facts; %d unchanged, %d duplicate filings skipped, %d failed",
		r.Documents, r.Chunks, r.Facts, r.Unchanged, r.Duplicates, r.Failed)
	if badLines > 0 {
		fmt.Fprintf(w, ", %d bad manifest lines", badLines)
	}
	fmt.Fprintf(w, "\nread %.1f MB in %s (%.1f MB/s, %.0f chunks/s)\n",
		float64(r.Bytes)/1e6, r.Elapsed.Round(time.Millisecond), float64(r.Bytes)/1e6/secs, float64(r.Chunks)/secs)
	for _, res := range r.Results {
		switch res.Outcome {
		case corpus.Duplicate:
			fmt.Fprintf(w, "  duplicate: %s is the same filing (%s %s %s) as stored %s\n",
				res.Entry.Path, res.Entry.Ticker, res.Entry.Form, res.Entry.PeriodEnd.Format(time.DateOnly), res.KeptSource)
		case corpus.Failed:
			fmt.Fprintf(w, "  failed: %v\n", res.Err)
		}
	}
	if r.Documents == 0 && r.Failed == 0 && (r.Unchanged > 0 || r.Duplicates > 0) {
		fmt.Fprintln(w, "nothing changed: every source was already stored")
	}
}
