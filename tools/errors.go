package tools

import (
	"errors"
	"fmt"
)

// ErrOutOfScope is matched (with errors.Is) by the ArgError of a call that
// reaches outside the run's scope: a ticker or fiscal year the run may not
// read, or a chunk of a document of another issuer or year.
var ErrOutOfScope = errors.New("tools: outside the run's scope")

// ErrUnknownTool is wrapped by the error for a tool name that is not one of
// Names().
var ErrUnknownTool = errors.New("tools: unknown tool")

// ErrDivisionByZero is wrapped by the error Evaluate returns when an
// expression divides by zero.
var ErrDivisionByZero = errors.New("division by zero")

// ArgError reports a call whose arguments are invalid or outside the run's
// scope; nothing was read. Field names the argument ("tickers",
// "facts.revenue.period"); Problem says what to change. Reach it with
// errors.As; errors.Is(err, ErrOutOfScope) tells a scope violation from a
// malformed argument.
type ArgError struct {
	Tool    string
	Field   string
	Problem string

	scope bool // a scope violation: Is(ErrOutOfScope)
}

// Error implements error: "tools: search_filings: tickers: ...".
func (e *ArgError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("tools: %s: %s", e.Tool, e.Problem)
	}
	return fmt.Sprintf("tools: %s: %s: %s", e.Tool, e.Field, e.Problem)
}

// Is reports whether target is ErrOutOfScope and e a scope violation.
func (e *ArgError) Is(target error) bool {
	return target == ErrOutOfScope && e.scope
}

func argErr(tool, field, format string, a ...any) *ArgError {
	return &ArgError{Tool: tool, Field: field, Problem: fmt.Sprintf(format, a...)}
}

func scopeErr(tool, field, format string, a ...any) *ArgError {
	return &ArgError{Tool: tool, Field: field, Problem: fmt.Sprintf(format, a...), scope: true}
}
