// Command research is the research engine's one binary: it migrates the
// database, ingests filings, and searches them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"migrate", "apply the database migrations (Postgres)", runMigrate},
	{"ingest", "read filings into the store: a manifest or files with flags", runIngest},
	{"fetch", "fetch issuers' filings from SEC EDGAR (cached, rate-limited) and ingest them", runFetch},
	{"search", "hybrid search over the ingested filings", runSearch},
	{"ask", "research a question: plan, gather cited evidence under budget, answer", runAsk},
	{"ledger", "a run's evidence ledger and budget audit: ledger show RUN_ID | ledger budget", runLedger},
	{"eval", "evaluate retrieval on the team's retrieval set: eval retrieval", runEval},
	{"bench", "measure search latency, HNSW recall and API load: bench scale | search | load", runBench},
	{"batch", "batch research on the job queue: batch submit FILE.jsonl | status BATCH_ID | results BATCH_ID", runBatch},
	{"worker", "execute queued research runs (Postgres); start as many as the database serves", runWorker},
	{"mcp", "serve the engine to MCP clients over stdio: search, facts, passages, ask, ledgers", runMCP},
	{"serve", "serve the web app, the HTTP API and /mcp (with in-process workers): runs, events, ledgers, search, metrics; without --db, the embedded store on 127.0.0.1", runServe},
	{"tenant", "tenants of the HTTP API and their keys and limits: tenant create NAME | key | revoke | limits | list", runTenant},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// subcommand is one subcommand of a command such as `research ledger`.
type subcommand struct {
	name string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// dispatch runs the subcommand args[0] names. Without one, or with an
// unknown one, it prints usage to stderr (naming the unknown one) and
// returns errUsage; "help" prints usage to stdout.
func dispatch(ctx context.Context, command, usage string, subs []subcommand, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	for _, sc := range subs {
		if sc.name == args[0] {
			return sc.run(ctx, args[1:], stdout, stderr)
		}
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "research %s: unknown subcommand %q\n\n%s", command, args[0], usage)
	return errUsage
}

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

// exitStatus is what a command returns when it did its work and printed
// its output but must exit with a code of its own (research ask's end
// states, 3 and up); nothing more is printed. 1 stays for errors and 2 for
// usage errors.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		var es exitStatus
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		case errors.As(err, &es):
			return int(es)
		}
		fmt.Fprintf(stderr, "research %s: %v\n", c.name, err)
		return 1
	}
	fmt.Fprintf(stderr, "research: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "research: a budgeted task-graph research engine over SEC filings, with an evidence ledger")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: research COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	cs := append([]command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'research COMMAND --help' for a command's flags.")
	fmt.Fprintln(w, "Without --db or DATABASE_URL, commands use the embedded store in --data-dir (default .research).")
}

// newFlagSet returns a flag set whose usage names the command and explains it.
func newFlagSet(name, synopsis, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: research %s %s\n\n%s\n\nFlags:\n", name, synopsis, about)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, mapping parse errors to errUsage (the flag
// package has printed them). Flags may follow positional arguments, so
// `research search "gross margin" --ticker AAPL` works as people type it.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(interspersed(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// interspersed moves the flags in args ahead of the positional arguments,
// keeping each flag's value with it; "--" ends the flags.
func interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // the parser reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(append(flags, "--"), pos...)
}
