package pgstore

import "strconv"

// args collects query arguments while a query is assembled from constant
// fragments; add returns the placeholder of the argument it appends.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}
