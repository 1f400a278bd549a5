package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/tools"
)

// What a run records (its notes, events and ledger) is the tenant's to
// read. The wrappers below keep the model endpoint's address, socket
// addresses, decoders' messages and the database's errors out of it:
// each error that reaches the executor says what happened in words a
// tenant can read, keeps the cause for errors.Is and errors.As and for
// the retry decision, and the cause itself goes to the process's log.

// PublicError is an error whose message is fit for a tenant and whose
// cause, which may name internals, is kept for errors.Is, errors.As and
// the operator's log.
type PublicError struct {
	Message string // what the tenant reads
	Cause   error
}

// Error is the message for the tenant.
func (e *PublicError) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *PublicError) Unwrap() error { return e.Cause }

// Retryable reports whether the cause is worth another attempt.
func (e *PublicError) Retryable() bool { return llm.IsTransient(e.Cause) }

// publicCaller is a model client whose errors name no endpoint.
type publicCaller struct {
	caller llm.Caller
	log    *slog.Logger
}

func (c *publicCaller) Call(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	resp, err := c.caller.Call(ctx, req)
	if err == nil {
		return resp, nil
	}
	pub := publicModelError(req.Model, err)
	if pub != err {
		c.log.Warn("model call failed", slog.String("model", req.Model), slog.String("error", err.Error()))
	}
	return resp, pub
}

// publicModelError is err in words that name neither the endpoint nor a
// decoder; the end of the caller's own context is returned as it is.
func publicModelError(model string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var te *llm.TimeoutError
	if errors.As(err, &te) {
		return err // names the model and the limit only
	}
	var se *llm.StatusError
	if errors.As(err, &se) {
		return &PublicError{Message: fmt.Sprintf("the model endpoint answered HTTP %d (%s)", se.StatusCode, statusWords(se.StatusCode)), Cause: err}
	}
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &PublicError{Message: "the model endpoint refused the connection", Cause: err}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &PublicError{Message: "the connection to the model endpoint was cut", Cause: err}
	case errors.As(err, &ne) && ne.Timeout():
		return &PublicError{Message: "the model endpoint did not answer in time", Cause: err}
	case errors.As(err, &ne):
		return &PublicError{Message: "the model endpoint could not be reached", Cause: err}
	}
	return &PublicError{Message: fmt.Sprintf("the call to model %s failed: its reply could not be used", model), Cause: err}
}

func statusWords(code int) string {
	switch {
	case code == 401 || code == 403:
		return "the endpoint refused the process's credentials"
	case code == 404:
		return "the endpoint does not know the model or the path"
	case code == 408 || code == 504:
		return "the endpoint timed out"
	case code == 429:
		return "the endpoint is rate limiting"
	case code >= 500:
		return "the endpoint failed"
	}
	return "the endpoint refused the request"
}

// publicAccountant is an accountant whose failures to reach its store
// name no database. Its own refusals (an exhausted budget and the like)
// are the budget's words and pass as they are.
type publicAccountant struct {
	executor.Accountant
	log *slog.Logger
}

func (a *publicAccountant) public(err error) error {
	if err == nil || budgetOwn(err) {
		return err
	}
	a.log.Warn("budget store failed", slog.String("error", err.Error()))
	return &PublicError{Message: "the budget could not be read or written (the store did not answer)", Cause: err}
}

// budgetOwn reports whether err is one of the budget's own answers or the
// end of the caller's context, not a failure of its store.
func budgetOwn(err error) bool {
	var (
		ex  *budget.ExhaustedError
		neg *budget.NegativeAmountError
		ovr *budget.OverReservationError
	)
	return errors.As(err, &ex) || errors.As(err, &neg) || errors.As(err, &ovr) ||
		errors.Is(err, budget.ErrNoBudget) || errors.Is(err, budget.ErrKeyReused) || errors.Is(err, budget.ErrReleased) ||
		errors.Is(err, budget.ErrUnknownReservation) || errors.Is(err, budget.ErrNoOutputCap) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func (a *publicAccountant) Reserve(ctx context.Context, key string, scopes []budget.Scope, amounts budget.Amounts, opts *budget.ReserveOpts) (budget.Result, error) {
	res, err := a.Accountant.Reserve(ctx, key, scopes, amounts, opts)
	return res, a.public(err)
}

func (a *publicAccountant) Settle(ctx context.Context, key string, actual budget.Amounts) (budget.Result, error) {
	res, err := a.Accountant.Settle(ctx, key, actual)
	return res, a.public(err)
}

func (a *publicAccountant) Release(ctx context.Context, key string) (budget.Result, error) {
	res, err := a.Accountant.Release(ctx, key)
	return res, a.public(err)
}

func (a *publicAccountant) SetLimits(ctx context.Context, scope budget.Scope, limits budget.Limits) error {
	return a.public(a.Accountant.SetLimits(ctx, scope, limits))
}

func (a *publicAccountant) Usage(ctx context.Context, scope budget.Scope) (budget.Usage, error) {
	u, err := a.Accountant.Usage(ctx, scope)
	return u, a.public(err)
}

// publicTool runs tool calls with run, and says of a store that failed
// under a tool (a run records its tool calls' errors) that it did not
// answer, without the driver's text; the tools' own refusals (an argument
// out of range, say) pass as they are.
func publicTool(run executor.ToolFunc, log *slog.Logger) executor.ToolFunc {
	return func(ctx context.Context, env *tools.Env, call tools.Call) (*tools.Output, error) {
		if env != nil && env.Describe == nil {
			// What the call records for its tenant names no store either.
			e := *env
			e.Describe = DescribeToolError
			env = &e
		}
		out, err := run(ctx, env, call)
		if err == nil || !storeFailure(err) {
			return out, err
		}
		log.Warn("tool call failed in its store", slog.String("tool", call.Tool), slog.String("error", err.Error()))
		return out, &PublicError{Message: call.Tool + ": the filings store did not answer", Cause: err}
	}
}

// DescribeToolError is the tools.Env.Describe of a tenant's runs: a
// failed call whose store did not answer is recorded in those words,
// without the driver's text (which names the database); the tools' own
// refusals keep their message.
func DescribeToolError(err error) string {
	if storeFailure(err) {
		return "the filings store did not answer"
	}
	return err.Error()
}

// storeFailure reports whether err is the database's or the network's,
// not a tool's own refusal.
func storeFailure(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the run's own end (its wall clock, a worker stopping)
	}
	var (
		pgErr   *pgconn.PgError
		connErr *pgconn.ConnectError
		ne      net.Error
	)
	return errors.As(err, &pgErr) || errors.As(err, &connErr) || errors.As(err, &ne) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.SafeToRetry(err)
}
