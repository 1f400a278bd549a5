package engine_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
)

// A process builds its engines once, from one configuration, and asks for
// a tenant's engine wherever a run executes: here the embedded store in a
// data directory; with Config.Pool, Postgres, where every run also counts
// against its tenant's daily budget.
func ExampleNew() {
	proc, err := engine.New(&engine.Config{DataDir: ".research"})
	if err != nil {
		log.Fatal(err)
	}
	defer proc.Close()
	eng, err := proc.Engine(context.Background(), "default")
	if err != nil {
		log.Fatal(err)
	}
	res, err := eng.Run(context.Background(), executor.Request{Question: "What drove Acme's gross margin in fiscal 2024?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status)
}
