package model

import (
	"sort"

	"github.com/lockstep-go/lockstep"
)

// partition is one row of one table: cells sorted bytewise by column, with no
// two cells for the same column. It is not safe for concurrent use; the Store
// guards it.
type partition struct {
	cells []StoredCell
	// purgedAt is the second of the last purge, so that automatic compaction
	// runs at most once per second of the store's clock per partition.
	purgedAt int64
	purged   bool
}

// search returns the index of the first cell whose column is >= column.
func (p *partition) search(column string) int {
	return sort.Search(len(p.cells), func(i int) bool { return p.cells[i].Column >= column })
}

// apply merges c (already normalized and owned) into the partition by
// Reconcile.
func (p *partition) apply(c StoredCell) {
	i := p.search(c.Column)
	if i < len(p.cells) && p.cells[i].Column == c.Column {
		if !reconcileLeft(p.cells[i], c) {
			p.cells[i] = c
		}
		return
	}
	p.cells = append(p.cells, StoredCell{})
	copy(p.cells[i+1:], p.cells[i:])
	p.cells[i] = c
}

// purge drops every cell Cassandra's compaction would drop at nowSec and turns
// expired cells into tombstones (see StoredCell.purgeAt). It returns how many
// cells it dropped.
func (p *partition) purge(nowSec, gcGrace int64) int {
	kept := p.cells[:0]
	for _, c := range p.cells {
		if k, ok := c.purgeAt(nowSec, gcGrace); ok {
			kept = append(kept, k)
		}
	}
	dropped := len(p.cells) - len(kept)
	clear(p.cells[len(kept):])
	p.cells = kept
	p.purgedAt, p.purged = nowSec, true
	return dropped
}

// walk visits the cells with s.From <= column < s.To in column order, calling
// visit with each cell and whether it is live at nowSec, and stops after
// s.Limit live cells (0: no limit). It returns how many dead cells (tombstones
// and expired cells) it stepped over: Cassandra's tombstone count for the read.
func (p *partition) walk(s lockstep.Slice, nowSec int64, visit func(c StoredCell, live bool)) (dead int) {
	live := 0
	for i := p.search(s.From); i < len(p.cells); i++ {
		c := p.cells[i]
		if s.To != "" && c.Column >= s.To {
			break
		}
		ok := c.IsLive(nowSec)
		visit(c, ok)
		if !ok {
			dead++
			continue
		}
		live++
		if s.Limit > 0 && live >= s.Limit {
			break
		}
	}
	return dead
}
