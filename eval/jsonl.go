package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// readJSONL reads one JSON object per line into T, strictly (unknown
// fields are an error); blank lines and lines starting with # are skipped.
// check validates each item and returns its id; an id used twice is an
// error. Errors name the line. A set with no item is an error naming what.
func readJSONL[T any](r io.Reader, what string, check func(*T) (string, error)) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 || raw[0] == '#' {
			continue
		}
		var it T
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&it); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		id, err := check(&it)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if prev, ok := seen[id]; ok {
			return nil, fmt.Errorf("line %d: id %s is already used on line %d", line, id, prev)
		}
		seen[id] = line
		out = append(out, it)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the %s holds no items", what)
	}
	return out, nil
}
