package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/bench"
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "bench", benchUsage, []subcommand{
		{"scale", runBenchScale}, {"search", runBenchSearch}, {"pages", runBenchPages}, {"load", runBenchLoad},
	}, args, stdout, stderr)
}

const benchUsage = `Usage: research bench (scale | search | pages | load) [flags]

  scale   search latency and HNSW recall on a synthetic corpus in a scratch schema
  search  search latency over the store the flags select (the ingested corpus)
  pages   page recall and nDCG of each search mode and of plain BM25 on analyst questions
  load    runs per second and latency of the HTTP API and its worker under concurrent clients

Run 'research bench SUBCOMMAND --help' for its flags.
`

func runBenchScale(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench scale", "[flags]",
		"Generates a synthetic corpus (Zipf-distributed financial words, deterministic per --seed),\n"+
			"embeds it with the hash embedder, loads it into a new schema bench_scale_<pid> (dropped at\n"+
			"the end unless --keep) and into an embedded store in a temporary directory, then times\n"+
			"fulltext, vector and hybrid searches on each and measures the recall@k of Postgres' HNSW\n"+
			"vector search against an exact search in Go. On Postgres it then times fulltext and hybrid\n"+
			"searches at each --fulltext-candidates bound, the bounds taking turns query by query, and\n"+
			"compares their results with the unbounded search's. Progress goes to stderr, the tables to stdout.", stderr)
	chunks := fs.Int("chunks", 200_000, "synthetic chunks")
	perDoc := fs.Int("chunks-per-doc", 500, "chunks per document")
	chunkBytes := fs.Int("chunk-bytes", 1000, "approximate bytes of text per chunk")
	tickers := fs.Int("tickers", 40, "distinct tickers")
	seed := fs.Uint64("seed", 1, "seed of the corpus and queries")
	noTopics := fs.Bool("no-topics", false, "draw every word from the whole vocabulary: chunks without near neighbours, the hardest case for HNSW")
	corpusDir := fs.String("corpus", "", "draw the vocabulary from the .txt files of this directory (e.g. /work/shared/corpus/text); default a built-in list")
	vocab := fs.Int("vocabulary", 3000, "words: read from --corpus, or generated rare words added to the built-in list")
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL); empty skips Postgres")
	schema := fs.String("schema", fmt.Sprintf("bench_scale_%d", os.Getpid()), "scratch schema to create (it must not exist)")
	queries := fs.Int("queries", 200, "queries (a third filtered to one ticker)")
	k := fs.Int("k", 10, "results per search, and the k of recall@k")
	var efs listFlag
	fs.Var(&efs, "ef-search", "HNSW ef_search settings for recall, 0 for the store's default (default 0,400)")
	var ftcs listFlag
	fs.Var(&ftcs, "fulltext-candidates", "full-text candidate bounds to time side by side, 0 for the store's default, -1 for none (default 0,-1)")
	workMem := fs.String("maintenance-work-mem", "2GB", "maintenance_work_mem for building the HNSW index")
	duringLoad := fs.Bool("index-during-load", false, "keep the HNSW index while loading instead of building it after")
	withEmbedded := fs.Bool("embedded", true, "also measure the embedded store")
	keep := fs.Bool("keep", false, "keep the schema and the embedded store's directory")
	jsonOut := fs.String("json", "", "also write the figures as JSON to this file; - writes JSON instead of the tables to stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	opts := &bench.ScaleOpts{
		Synthetic:          bench.SyntheticOpts{Chunks: *chunks, ChunksPerDoc: *perDoc, ChunkBytes: *chunkBytes, Tickers: *tickers, Seed: *seed, NoTopics: *noTopics},
		Queries:            *queries,
		K:                  *k,
		IndexDuringLoad:    *duringLoad,
		MaintenanceWorkMem: *workMem,
	}
	for _, e := range efs {
		n, err := strconv.Atoi(e)
		if err != nil {
			return fmt.Errorf("--ef-search %q is not a number", e)
		}
		opts.EfSearch = append(opts.EfSearch, n)
	}
	for _, e := range ftcs {
		n, err := strconv.Atoi(e)
		if err != nil {
			return fmt.Errorf("--fulltext-candidates %q is not a number", e)
		}
		opts.FullTextCandidates = append(opts.FullTextCandidates, n)
	}
	var err error
	if *corpusDir != "" {
		if opts.Vocabulary, err = bench.ReadVocabulary(*corpusDir, *vocab); err != nil {
			return err
		}
	} else {
		opts.Vocabulary = bench.BuiltinVocabulary(*vocab, *seed)
	}
	if *db == "" && !*withEmbedded {
		return errors.New("nothing to measure: no --db and --embedded=false")
	}
	if *withEmbedded {
		dir, err := os.MkdirTemp("", "bench-scale-embedded-")
		if err != nil {
			return err
		}
		opts.EmbeddedDir = dir
		if *keep {
			fmt.Fprintf(stderr, "embedded store: %s (kept)\n", dir)
		} else {
			defer os.RemoveAll(dir)
		}
	}
	var sch *bench.Schema
	if *db != "" {
		if sch, err = bench.CreateSchema(ctx, *db, *schema); err != nil {
			return redactErr(err, *db)
		}
		if *keep {
			defer sch.Close()
			fmt.Fprintf(stderr, "schema: %s (kept)\n", sch.Name)
		} else {
			defer func() {
				if err := sch.Drop(context.WithoutCancel(ctx)); err != nil {
					fmt.Fprintf(stderr, "research bench scale: %v\n", err)
				}
			}()
		}
	} else {
		fmt.Fprintln(stderr, "no --db or DATABASE_URL: measuring the embedded store only")
	}
	var pool *pgxpool.Pool
	if sch != nil {
		pool = sch.Pool
	}
	rep, err := bench.RunScale(ctx, pool, opts, stderr)
	if err != nil {
		return err
	}
	return writeBenchReport(stdout, *jsonOut, rep, rep.WriteText)
}

func runBenchSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench search", "[--db URL | --data-dir DIR] [flags]",
		"Times fulltext, vector and hybrid searches over the store the flags select: every query\n"+
			"runs once to warm, then --n searches are timed one after another, cycling through the\n"+
			"queries. Queries come from --queries (JSONL with a \"query\" field and optional filters),\n"+
			"by default eval/retrieval.jsonl when it exists, else thirty built-in analyst queries.", stderr)
	var sf storeFlags
	sf.register(fs)
	queriesFile := fs.String("queries", "", "JSONL queries file; \"builtin\" for the built-in list (default eval/retrieval.jsonl if present)")
	noFilters := fs.Bool("no-filters", false, "ignore the queries' filters")
	n := fs.Int("n", 200, "timed searches per mode")
	k := fs.Int("k", 10, fmt.Sprintf("results per search (1-%d)", corpus.MaxK))
	jsonOut := fs.String("json", "", "also write the figures as JSON to this file; - writes JSON instead of the table to stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if *n < 1 || *k < 1 || *k > corpus.MaxK {
		return fmt.Errorf("--n %d or --k %d out of range", *n, *k)
	}
	queries, source, err := loadBenchQueries(*queriesFile)
	if err != nil {
		return err
	}
	if *noFilters {
		for i := range queries {
			queries[i].Filter = corpus.Filter{}
		}
	}
	fmt.Fprintf(stderr, "queries: %d from %s\n", len(queries), source)
	store, emb, closeStore, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	label := "embedded " + sf.dataDir
	if sf.db != "" {
		label = "postgres tenant " + sf.tenant
	}
	rep, err := bench.RunSearch(ctx, store, emb, queries, &bench.SearchOpts{Store: label, N: *n, K: *k}, stderr)
	if err != nil {
		return err
	}
	return writeBenchReport(stdout, *jsonOut, rep, rep.WriteText)
}

func runBenchPages(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench pages", "[--db URL | --data-dir DIR] [flags]",
		"Searches every question of --questions (JSONL, the format of eval/pages.jsonl) with its\n"+
			"issuer filter, in each mode and with a plain BM25 over the same chunks, and reports page\n"+
			"recall@5, recall@10 and nDCG@10 on the test half, the tuning half and both.", stderr)
	var sf storeFlags
	sf.register(fs)
	questions := fs.String("questions", defaultPageQuestions, "JSONL questions with their evidence pages")
	jsonOut := fs.String("json", "", "also write the figures and each question's first relevant rank as JSON to this file; - writes JSON instead of the table to stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	f, err := os.Open(*questions)
	if err != nil {
		return err
	}
	qs, err := bench.ReadPageQuestions(f)
	f.Close()
	if err != nil {
		return err
	}
	store, emb, closeStore, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	label := "embedded " + sf.dataDir
	if sf.db != "" {
		label = "postgres tenant " + sf.tenant
	}
	rep, err := bench.RunPages(ctx, store, emb, qs, &bench.PagesOpts{Store: label}, stderr)
	if err != nil {
		return err
	}
	return writeBenchReport(stdout, *jsonOut, rep, rep.WriteText)
}

// defaultPageQuestions is the page-retrieval question set.
const defaultPageQuestions = "eval/pages.jsonl"

// defaultBenchQueries is the evaluation set, used when it is present.
const defaultBenchQueries = "eval/retrieval.jsonl"

func loadBenchQueries(path string) ([]bench.Query, string, error) {
	if path == "builtin" {
		return bench.DefaultQueries(), "the built-in list", nil
	}
	explicit := path != ""
	if !explicit {
		path = defaultBenchQueries
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return bench.DefaultQueries(), "the built-in list (no " + defaultBenchQueries + ")", nil
	}
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	qs, err := bench.ReadQueries(f)
	if err != nil {
		return nil, "", err
	}
	if len(qs) == 0 {
		return nil, "", fmt.Errorf("%s holds no queries", path)
	}
	return qs, path, nil
}

// writeBenchReport writes the tables to stdout and, with jsonPath, the
// report as JSON to that file, or to stdout instead of the tables for "-".
func writeBenchReport(stdout io.Writer, jsonPath string, rep any, writeText func(io.Writer) error) error {
	if jsonPath == "-" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if err := writeText(stdout); err != nil {
		return err
	}
	if jsonPath == "" {
		return nil
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(jsonPath, append(b, '\n'), 0o644)
}

// redactErr removes a URL (which may hold a password) from err's message.
func redactErr(err error, url string) error {
	return errors.New(redact(err.Error(), url))
}
