package cassandra

import (
	"strings"

	"github.com/lockstep-go/lockstep"
)

// Statement templates. The placeholder is replaced by "keyspace.table" after
// both names passed lockstep.ValidateName; nothing else is ever spliced in,
// and every value travels as a bind marker.
const (
	tablePlaceholder = "<table>"

	putTemplate    = "UPDATE <table> USING TIMESTAMP ? AND TTL ? SET value = ? WHERE row_key = ? AND column_name = ?"
	deleteTemplate = "DELETE FROM <table> USING TIMESTAMP ? WHERE row_key = ? AND column_name = ?"
	selectTemplate = "SELECT column_name, value, WRITETIME(value), TTL(value) FROM <table> WHERE row_key = ? AND column_name >= ?"
	toClause       = " AND column_name < ?"
	limitClause    = " LIMIT ?"
)

// statements holds the query strings of one table. gocql prepares each on
// first use and caches the prepared id per host.
type statements struct {
	put, del string
	// read is indexed by readVariant: whether the slice has an upper bound
	// and whether it has a limit.
	read [4]string
}

// readVariant selects the read statement for a slice.
func readVariant(s lockstep.Slice) int {
	v := 0
	if s.To != "" {
		v |= 1
	}
	if s.Limit > 0 {
		v |= 2
	}
	return v
}

// newStatements builds the statements of keyspace.table. Both names must
// already be valid.
func newStatements(keyspace, table string) *statements {
	r := strings.NewReplacer(tablePlaceholder, keyspace+"."+table)
	st := &statements{
		put: r.Replace(putTemplate),
		del: r.Replace(deleteTemplate),
	}
	sel := r.Replace(selectTemplate)
	st.read[0] = sel
	st.read[1] = sel + toClause
	st.read[2] = sel + limitClause
	st.read[3] = sel + toClause + limitClause
	return st
}

// statementsFor returns the cached statements of table, validating its name
// the first time it is seen.
func (s *Store) statementsFor(table string) (*statements, error) {
	if st, ok := s.stmts.Load(table); ok {
		return st.(*statements), nil
	}
	if err := lockstep.ValidateName("table", table); err != nil {
		return nil, err
	}
	st, _ := s.stmts.LoadOrStore(table, newStatements(s.keyspace, table))
	return st.(*statements), nil
}
