package history

import "strings"

// The scopes a Record names (docs/multi-dc.md).
const (
	ScopeGlobal = "global" // one holder of an id across every data centre
	ScopeLocal  = "local"  // one holder of an id per data centre
)

// LocalKey is the Lock of a record about the DC-local lock of id in data
// centre dc: id + "@" + dc. Worker lock ids have no "@".
func LocalKey(id, dc string) string { return id + "@" + dc }

// SplitLocal splits a LocalKey into its id and data centre; ok is false for
// any other key (a global lock's).
func SplitLocal(key string) (id, dc string, ok bool) {
	i := strings.LastIndexByte(key, '@')
	if i <= 0 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}
