package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/jobs"
)

const batchUsage = `Usage: research batch SUBCOMMAND [flags]

Subcommands:
  submit FILE.jsonl   queue one research run per line, all in one transaction; prints the batch id
  status BATCH_ID     runs counted by job state and by status, and the spend so far
  results BATCH_ID    each line's result in submission order (--format jsonl|text)

Batches need Postgres (--db or $DATABASE_URL); 'research worker' executes the runs.
Run 'research batch SUBCOMMAND --help' for its flags.
`

// runBatch dispatches the batch subcommands.
func runBatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "batch", batchUsage, []subcommand{
		{"submit", runBatchSubmit}, {"status", runBatchStatus}, {"results", runBatchResults},
	}, args, stdout, stderr)
}

// queueFlags are the flags of the commands that use the job queue.
type queueFlags struct {
	db     string
	tenant string
}

func (f *queueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.db, "db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL); required")
	fs.StringVar(&f.tenant, "tenant", "default", "tenant whose runs these are")
}

// errNoQueueDB is the error of a queue command without a database.
var errNoQueueDB = errors.New("no database: pass --db URL or set DATABASE_URL (the job queue lives in Postgres; the embedded store has none)")

// open connects to the database the flags name and migrates it.
func (f *queueFlags) open(ctx context.Context) (*pgxpool.Pool, error) {
	if f.db == "" {
		return nil, errNoQueueDB
	}
	return openMigratedPool(ctx, f.db)
}

func runBatchSubmit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("batch submit", "FILE.jsonl [flags]",
		"Queue one research run per line of FILE (- reads stdin). Each line is a JSON object:\n"+
			"  {\"question\": \"...\", \"tickers\": [\"ABCD\"], \"mode\": \"rules\", \"budget_usd\": 0.25,\n"+
			"   \"max_calls\": 40, \"idempotency_key\": \"q-17\"}\n"+
			"where only question is required. Lines that are not valid are reported with their numbers and\n"+
			"the others are queued, in one transaction; the command then exits 1. A line whose idempotency\n"+
			"key the tenant submitted before names that run and queues nothing. Prints the batch id.", stderr)
	var qf queueFlags
	qf.register(fs)
	withModel := fs.Bool("with-model", os.Getenv("RESEARCH_MODEL") != "",
		"the workers have a model, so a line in auto mode may run in model mode (default: whether $RESEARCH_MODEL is set)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if qf.db == "" {
		return errNoQueueDB
	}
	name := fs.Arg(0)
	var in io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	lines, bad, err := jobs.ParseBatch(in)
	if err != nil {
		return err
	}
	for _, e := range bad {
		fmt.Fprintf(stderr, "%s:%d: %v\n", name, e.Line, e.Err)
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: no question to submit (%d lines rejected)", name, len(bad))
	}
	for i := range lines {
		lines[i].Submission.ModelConfigured = *withModel
	}
	pool, err := qf.open(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: qf.tenant})
	if err != nil {
		return err
	}
	stats, err := store.Stats(ctx)
	if err != nil {
		return err
	}
	if stats.Documents == 0 {
		return fmt.Errorf("tenant %q holds no filings: run `research ingest --db ... --tenant %s --manifest ...` first", qf.tenant, qf.tenant)
	}
	b, err := jobs.SubmitBatch(ctx, pool, qf.tenant, name, lines, len(bad))
	if err != nil {
		var le *jobs.LineError
		if errors.As(err, &le) {
			return fmt.Errorf("%s:%d: %v; nothing was queued", name, le.Line, le.Err)
		}
		return err
	}
	reused := 0
	for _, it := range b.Items {
		if it.Reused {
			reused++
		}
	}
	fmt.Fprintln(stdout, b.ID)
	fmt.Fprintf(stderr, "batch %s: %d questions queued", b.ID, len(b.Items)-reused)
	if reused > 0 {
		fmt.Fprintf(stderr, ", %d named runs submitted before (same idempotency key)", reused)
	}
	fmt.Fprintf(stderr, ", %d lines rejected\n", len(bad))
	if len(bad) > 0 {
		return fmt.Errorf("%d lines of %s were rejected (see above); the others are queued as batch %s", len(bad), name, b.ID)
	}
	return nil
}

func runBatchStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("batch status", "BATCH_ID [flags]",
		"Where a batch stands: its runs counted by the state of their job (available, running, retryable,\n"+
			"completed, discarded, ...) and by status (queued, running, or the verdict), how many are done,\n"+
			"and what they have spent (settled) and hold (reserved by calls in flight).", stderr)
	var qf queueFlags
	qf.register(fs)
	format := fs.String("format", "text", "text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("--format %q: want text or json", *format)
	}
	pool, err := qf.open(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	st, err := jobs.GetBatchStatus(ctx, pool, qf.tenant, fs.Arg(0))
	if errors.Is(err, jobs.ErrNotFound) {
		return fmt.Errorf("batch %q not found for tenant %q", fs.Arg(0), qf.tenant)
	}
	if err != nil {
		return err
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"batch_id": st.ID, "source": st.Source, "created": st.Created, "lines": st.Lines, "rejected": st.Rejected,
			"runs": st.Runs, "done": st.Done, "jobs": st.Jobs, "statuses": st.Statuses,
			"spend_usd": st.SpendUSD.String(), "held_usd": st.HeldUSD.String(),
		})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Batch:\t%s (%s), submitted %s\n", st.ID, st.Source, st.Created.Format("2006-01-02 15:04:05 UTC"))
	fmt.Fprintf(tw, "Lines:\t%d read, %d rejected, %d runs\n", st.Lines, st.Rejected, st.Runs)
	fmt.Fprintf(tw, "Done:\t%d of %d\n", st.Done, st.Runs)
	fmt.Fprintf(tw, "Runs by status:\t%s\n", counts(st.Statuses))
	fmt.Fprintf(tw, "Jobs by state:\t%s\n", counts(st.Jobs))
	fmt.Fprintf(tw, "Spend:\t$%s settled, $%s held\n", st.SpendUSD, st.HeldUSD)
	return tw.Flush()
}

// counts formats a count map as "a 3, b 1", largest first.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func runBatchResults(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("batch results", "BATCH_ID [flags]",
		"Each accepted line of a batch, in submission order. jsonl: one JSON object per line, the run's\n"+
			"result as 'research ask --format json' prints it plus its batch line; a run without a result\n"+
			"yet shows its line, run id, status (queued, running or failed), job state and last error.\n"+
			"text: one line per run with its status and question.", stderr)
	var qf queueFlags
	qf.register(fs)
	format := fs.String("format", "jsonl", "jsonl or text")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if *format != "jsonl" && *format != "text" {
		return fmt.Errorf("--format %q: want jsonl or text", *format)
	}
	pool, err := qf.open(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	results, err := jobs.BatchResults(ctx, pool, qf.tenant, fs.Arg(0))
	if errors.Is(err, jobs.ErrNotFound) {
		return fmt.Errorf("batch %q not found for tenant %q", fs.Arg(0), qf.tenant)
	}
	if err != nil {
		return err
	}
	if *format == "jsonl" {
		enc := json.NewEncoder(stdout)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "line\tstatus\trun\tcitations\tquestion")
	for _, r := range results {
		cites := "-"
		if r.Result != nil {
			cites = fmt.Sprint(len(r.Result.Citations))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.Line, r.Status, r.RunID, cites, oneLine(r.Question, 70))
	}
	return tw.Flush()
}
