package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/eval"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", "retrieval [--set FILE] [--k 5,10] [store flags]",
		"retrieval: scores full-text, vector, hybrid and hybrid with per-issuer interleaving\n"+
			"on a retrieval set (default: the built-in eval/retrieval.jsonl) over the ingested\n"+
			"filings, by recall@k, nDCG@k, MRR and issuer coverage.", stderr)
	var sf storeFlags
	sf.register(fs)
	setPath := fs.String("set", "", "retrieval set JSONL (default: the built-in set)")
	var ks listFlag
	fs.Var(&ks, "k", "cut-offs (default 5,10)")
	perItem := fs.Bool("per-item", false, "also print each query's rank of the first relevant result")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "retrieval" {
		fs.Usage()
		return errUsage
	}
	cutoffs := []int{5, 10}
	if len(ks) > 0 {
		cutoffs = cutoffs[:0]
		for _, k := range ks {
			n, err := strconv.Atoi(k)
			if err != nil || n < 1 || n > corpus.MaxK {
				return fmt.Errorf("--k %q: want cut-offs from 1 to %d", k, corpus.MaxK)
			}
			cutoffs = append(cutoffs, n)
		}
	}
	raw := eval.RetrievalSetJSONL
	if *setPath != "" {
		b, err := os.ReadFile(*setPath)
		if err != nil {
			return err
		}
		raw = b
	}
	set, err := eval.LoadRetrievalSet(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("retrieval set: %w", err)
	}
	store, emb, closeStore, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	st, err := store.Stats(ctx)
	if err != nil {
		return err
	}
	if st.Documents == 0 {
		return fmt.Errorf("the store holds no documents: run research ingest first")
	}
	scores, err := eval.RunRetrieval(ctx, corpus.NewSearcher(store, emb), set, eval.Methods, cutoffs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d queries over %d documents (%d chunks), embedder %s\n\n", len(set), st.Documents, st.Chunks, emb.Name())
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "method\t")
	for _, k := range cutoffs {
		fmt.Fprintf(tw, "recall@%d\t", k)
	}
	for _, k := range cutoffs {
		fmt.Fprintf(tw, "nDCG@%d\t", k)
	}
	fmt.Fprintln(tw, "MRR\tissuers\t")
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t", s.Method)
		for _, k := range cutoffs {
			fmt.Fprintf(tw, "%.3f\t", s.Recall[k])
		}
		for _, k := range cutoffs {
			fmt.Fprintf(tw, "%.3f\t", s.NDCG[k])
		}
		fmt.Fprintf(tw, "%.3f\t%.3f\t\n", s.MRR, s.IssuerCoverage)
	}
	tw.Flush()
	if *perItem {
		fmt.Fprintln(stdout)
		tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "query\t")
		for _, s := range scores {
			fmt.Fprintf(tw, "%s\t", s.Method)
		}
		fmt.Fprintln(tw)
		for i, q := range set {
			fmt.Fprintf(tw, "%s\t", q.ID)
			for _, s := range scores {
				fmt.Fprintf(tw, "%d\t", s.PerItem[i].Rank)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	return nil
}
