package bench

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/ledgerline/research/migrations"
)

// Schema is a scratch Postgres schema for one benchmark run.
type Schema struct {
	Name string
	Pool *pgxpool.Pool // search_path is Name, public; the pgvector types are registered

	url string
}

// CreateSchema creates the schema name, which must not exist, opens a pool
// whose connections use it, and applies the migrations to it.
func CreateSchema(ctx context.Context, url, name string) (*Schema, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("bench: database URL: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		return nil, fmt.Errorf("bench: create schema %s: %w", name, err)
	}
	s := &Schema{Name: name, url: url}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{name}.Sanitize() + ",public"
	cfg.AfterConnect = pgxvec.RegisterTypes
	if s.Pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, s.dropAfter(ctx, err)
	}
	if _, err := migrations.Apply(ctx, s.Pool); err != nil {
		return nil, s.dropAfter(ctx, err)
	}
	return s, nil
}

// dropAfter drops the schema after err and returns err.
func (s *Schema) dropAfter(ctx context.Context, err error) error {
	if dropErr := s.Drop(context.WithoutCancel(ctx)); dropErr != nil {
		return fmt.Errorf("bench: %w (and %v)", err, dropErr)
	}
	return fmt.Errorf("bench: %w", err)
}

// Close closes the pool and keeps the schema.
func (s *Schema) Close() {
	if s.Pool != nil {
		s.Pool.Close()
	}
}

// Drop closes the pool and drops the schema with everything in it.
func (s *Schema) Drop(ctx context.Context) error {
	s.Close()
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		return fmt.Errorf("bench: drop schema %s: %w", s.Name, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{s.Name}.Sanitize()+" CASCADE"); err != nil {
		return fmt.Errorf("bench: drop schema %s: %w", s.Name, err)
	}
	return nil
}
