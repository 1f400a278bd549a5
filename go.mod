module github.com/ledgerline/research

go 1.26.8

require (
	github.com/jackc/pgx/v5 v5.12.0
	github.com/openai/openai-go/v3 v3.98.0
	github.com/pgvector/pgvector-go v0.3.0
	github.com/shopspring/decimal v1.6.0
	golang.org/x/net v0.62.0
	golang.org/x/sync v0.25.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/text v0.43.0 // indirect
)
