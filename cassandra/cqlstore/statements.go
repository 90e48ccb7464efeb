package cqlstore

import (
	"strings"
	"sync"

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

	// Fenced-resource statements (package fence), on the key/token/value
	// table package schema creates (fenced_resource.cql: row_key,
	// fence_token, value; "token" is reserved in CQL).
	fenceInsertTemplate = "INSERT INTO <table> (row_key, fence_token, value) VALUES (?, ?, ?) IF NOT EXISTS"
	fenceUpdateTemplate = "UPDATE <table> SET fence_token = ?, value = ? WHERE row_key = ? IF fence_token <= ?"
	fenceSelectTemplate = "SELECT fence_token, value FROM <table> WHERE row_key = ?"
)

// Statements are the CQL texts of the cell operations on one table.
type Statements struct {
	Put, Delete string
	// Read holds the select in its four variants, indexed by ReadVariant:
	// with or without an upper bound, with or without a limit.
	Read [4]string
}

// FenceStatements are the CQL texts of the fenced-value operations on one
// table.
type FenceStatements struct{ Insert, Update, Load string }

func newStatements(keyspace, table string) *Statements {
	r := strings.NewReplacer(tablePlaceholder, keyspace+"."+table)
	st := &Statements{Put: r.Replace(putTemplate), Delete: r.Replace(deleteTemplate)}
	sel := r.Replace(selectTemplate)
	st.Read[0] = sel
	st.Read[1] = sel + toClause
	st.Read[2] = sel + limitClause
	st.Read[3] = sel + toClause + limitClause
	return st
}

func newFenceStatements(keyspace, table string) *FenceStatements {
	r := strings.NewReplacer(tablePlaceholder, keyspace+"."+table)
	return &FenceStatements{
		Insert: r.Replace(fenceInsertTemplate),
		Update: r.Replace(fenceUpdateTemplate),
		Load:   r.Replace(fenceSelectTemplate),
	}
}

// ReadVariant indexes Statements.Read for a slice: bit 0 for an upper bound,
// bit 1 for a limit.
func ReadVariant(sl lockstep.Slice) int {
	v := 0
	if sl.To != "" {
		v |= 1
	}
	if sl.Limit > 0 {
		v |= 2
	}
	return v
}

// cache holds the statements of each table of one keyspace, built the first
// time a table is named, after its name is validated.
type cache[S any] struct {
	keyspace string
	build    func(keyspace, table string) *S
	m        sync.Map // table name -> *S
}

func (c *cache[S]) get(table string) (*S, error) {
	if st, ok := c.m.Load(table); ok {
		return st.(*S), nil
	}
	if err := lockstep.ValidateName("table", table); err != nil {
		return nil, err
	}
	st, _ := c.m.LoadOrStore(table, c.build(c.keyspace, table))
	return st.(*S), nil
}
