package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ledgerline/research/planner"
)

// nodeFunc runs one node. A returned error marks the node failed, so its
// dependents are skipped; a *fatalError stops the whole graph.
type nodeFunc func(ctx context.Context, n planner.Node) error

// skipFunc is told about a node that will not run, and why.
type skipFunc func(n planner.Node, reason string)

// fatalError wraps an error that must stop the run (the ledger cannot
// record, say). Everything else a node meets is a gap, not a crash.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// Node states in runGraph.
const (
	stateWaiting = iota
	stateRunning
	stateDone
	stateFailed
	stateSkipped
)

// runGraph runs nodes as their dependencies finish: every node whose
// dependencies have all finished starts at once in its own goroutine, so
// independent nodes run concurrently; how many really run at a time is for
// run to bound (it acquires the provider and tenant semaphores). Once
// halt reports true no further node starts, and those not started are
// skipped; a node whose dependency failed or was skipped is skipped too.
// runGraph returns when every node has finished or been skipped, with the
// first fatal error, if any.
func runGraph(ctx context.Context, nodes []planner.Node, run nodeFunc, skip skipFunc, halt func() bool) error {
	if len(nodes) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.ID] = i
	}
	pending := make([]int, len(nodes)) // unfinished dependencies
	dependents := make([][]int, len(nodes))
	for i, n := range nodes {
		for _, d := range n.DependsOn {
			j, ok := index[d]
			if !ok {
				return fmt.Errorf("executor: node %s depends on unknown node %s", n.ID, d)
			}
			pending[i]++
			dependents[j] = append(dependents[j], i)
		}
	}

	type result struct {
		i   int
		err error
	}
	results := make(chan result, len(nodes))
	state := make([]int, len(nodes))
	blocked := make([]string, len(nodes)) // why a node will be skipped
	var wg sync.WaitGroup
	var fatal error
	running := 0
	queue := make([]int, 0, len(nodes)) // nodes whose dependencies are all settled

	for i := range nodes {
		if pending[i] == 0 {
			queue = append(queue, i)
		}
	}
	// settle marks node i finished in state s and queues the dependents
	// it was the last dependency of.
	settle := func(i, s int) {
		state[i] = s
		for _, j := range dependents[i] {
			if s != stateDone && blocked[j] == "" {
				blocked[j] = fmt.Sprintf("dependency %s did not complete", nodes[i].ID)
			}
			if pending[j]--; pending[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	for {
		for len(queue) > 0 {
			i := queue[0]
			queue = queue[1:]
			reason := blocked[i]
			if reason == "" && (fatal != nil || halt()) {
				reason = "the run stopped gathering"
			}
			if reason != "" {
				skip(nodes[i], reason)
				settle(i, stateSkipped)
				continue
			}
			state[i] = stateRunning
			running++
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				results <- result{i, run(ctx, nodes[i])}
			}(i)
		}
		if running == 0 {
			break
		}
		r := <-results
		running--
		s := stateDone
		if r.err != nil {
			s = stateFailed
			var fe *fatalError
			if errors.As(r.err, &fe) && fatal == nil {
				fatal = fe.err
				cancel()
			}
		}
		settle(r.i, s)
	}
	wg.Wait()
	// Nodes still waiting sit on a cycle the validator should have caught.
	for i := range nodes {
		if state[i] == stateWaiting {
			skip(nodes[i], "its dependencies form a cycle")
			state[i] = stateSkipped
		}
	}
	return fatal
}

// criticalPath returns the length, in nodes, of the longest dependency
// chain of the graph, weighting each node by cost(n).
func criticalPath(nodes []planner.Node, cost func(planner.Node) float64) float64 {
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.ID] = i
	}
	memo := make([]float64, len(nodes))
	seen := make([]bool, len(nodes))
	var longest func(i int, depth int) float64
	longest = func(i, depth int) float64 {
		if seen[i] || depth > len(nodes) {
			return memo[i]
		}
		best := 0.0
		for _, d := range nodes[i].DependsOn {
			if j, ok := index[d]; ok {
				best = max(best, longest(j, depth+1))
			}
		}
		memo[i], seen[i] = best+cost(nodes[i]), true
		return memo[i]
	}
	total := 0.0
	for i := range nodes {
		total = max(total, longest(i, 0))
	}
	return total
}
