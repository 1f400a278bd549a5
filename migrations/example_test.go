package migrations_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/migrations"
)

// Apply brings the schema up to date; running it again, or from several
// processes at once, applies nothing twice.
func ExampleApply() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	applied, err := migrations.Apply(ctx, pool)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("applied", applied)
}
