package history

import (
	"strconv"
	"strings"
)

// Holder is the Process of the records of goroutine g of worker process
// (rbworker --goroutines): process + "/g" + g. Each goroutine holds its own
// locks, and the checkers judge it as a holder of its own, so that two
// goroutines of one process holding one id at once is a violation like any
// other. Process ids have no "/" (the library allows [A-Za-z0-9._:-]).
func Holder(process string, g int) string { return process + "/g" + strconv.Itoa(g) }

// ProcessOf is the worker process of a record's Process: the process a
// Holder names, or the Process itself.
func ProcessOf(holder string) string {
	i := strings.LastIndex(holder, "/g")
	if i <= 0 {
		return holder
	}
	if _, err := strconv.Atoi(holder[i+2:]); err != nil {
		return holder
	}
	return holder[:i]
}
