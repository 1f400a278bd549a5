# research: a budgeted task-graph research engine over SEC filings.

CORPUS ?= ../shared/corpus
DATA_DIR ?= .research
GO ?= go
BIN := bin/research

.DEFAULT_GOAL := help

.PHONY: help
help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## build bin/research
	$(GO) build -o $(BIN) ./cmd/research

.PHONY: test
test: ## go vet and the race-enabled tests (integration tests need DATABASE_URL)
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 30m ./...

.PHONY: demo
demo: build ## ingest the sample corpus into the embedded store and research a three-company question
	@if test -f $(CORPUS)/manifest.jsonl; then \
		./$(BIN) ingest --data-dir $(DATA_DIR) --manifest $(CORPUS)/manifest.jsonl --quiet || true; \
	elif test -d $(DATA_DIR)/docs; then \
		echo "no corpus at $(CORPUS): using the filings already in $(DATA_DIR)"; \
	else \
		echo "no corpus at $(CORPUS): pass CORPUS=path/to/corpus, or fetch a small demo set from SEC EDGAR first:"; \
		echo "  ./$(BIN) fetch --data-dir $(DATA_DIR) --ticker AAPL,NVDA,GOOGL --forms 10-K --since 2023 --user-agent \"Your Org you@example.com\""; \
		exit 1; \
	fi
	./$(BIN) search --data-dir $(DATA_DIR) "gross margin decreased" --ticker AAPL,NVDA --k 3
	./$(BIN) ask --data-dir $(DATA_DIR) --dry-run --plan summary "Compare gross-margin pressure at AAPL, NVDA and GOOGL in their latest fiscal year and say whether management expects it to persist."
	./$(BIN) ask --data-dir $(DATA_DIR) "Compare gross-margin pressure at AAPL, NVDA and GOOGL in their latest fiscal year and say whether management expects it to persist."
	@echo
	@echo "Next: ./$(BIN) ask \"What drove Apple's Services net sales increase in fiscal 2024?\"  (the store in $(DATA_DIR) is the default)"
	@echo "      ./$(BIN) mcp to serve it to an MCP client; ./$(BIN) serve for the web app (README: Web app)"

.PHONY: bench
bench: ## run the Go benchmarks
	$(GO) test -run '^$$' -bench . -benchmem ./...

.PHONY: screenshots
screenshots: ## the README's web-app screenshots into docs/img (drives chromium; needs DATABASE_URL)
	@test -n "$$DATABASE_URL" || { echo "screenshots: set DATABASE_URL to a Postgres the tests may use (make db starts one)"; exit 1; }
	@mkdir -p docs/img
	CI=true RESEARCH_SCREENSHOTS=$(CURDIR)/docs/img $(GO) test -count=1 -run '^TestBrowserAskWatchAndReadTheSource$$' ./web/

.PHONY: lint
lint: ## gofmt and go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

.PHONY: db
db: ## install and start Postgres with pgvector (needs root)
	bash scripts/setup-postgres.sh

.PHONY: clean
clean: ## remove the binary and the demo store
	rm -rf bin $(DATA_DIR)
