package model

import (
	"fmt"
	"sort"

	"github.com/lockstep-go/lockstep"
)

// Read is a coordinator read at coord of the partition row of table from the
// listed replicas (which must be at least R distinct ones). Each replica
// answers with every stored cell in the slice's column range, tombstones
// included; the coordinator merges the answers per column by Reconcile and,
// unless read repair is off, writes each merged cell to every asked replica
// whose answer lacked it or held a losing version, before returning (blocking
// read repair). It returns the merged cells live by the coordinator's clock,
// in column order, at most s.Limit of them (0: all).
//
// Replicas are scanned without a limit and the limit is applied after the
// merge, so the model never produces Cassandra's short reads.
func (c *Cluster) Read(coord int, replicas []int, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	if err := c.checkReadSet(replicas); err != nil {
		return nil, err
	}
	if s.Limit < 0 {
		return nil, fmt.Errorf("model: negative read limit %d", s.Limit)
	}
	scan := lockstep.Slice{From: s.From, To: s.To}
	answers := make([]map[string]StoredCell, len(replicas))
	merged := map[string]StoredCell{}
	for k, i := range replicas {
		answers[k] = map[string]StoredCell{}
		for _, cell := range c.replicas[i].Scan(table, row, scan) {
			answers[k][cell.Column] = cell
			if cur, ok := merged[cell.Column]; ok {
				merged[cell.Column] = Reconcile(cur, cell)
			} else {
				merged[cell.Column] = cell
			}
		}
	}
	if !c.cfg.NoReadRepair {
		c.repair(replicas, answers, merged, table, row)
	}
	return liveCells(merged, secondsOf(c.ReplicaNow(coord)), s.Limit), nil
}

func (c *Cluster) checkReadSet(replicas []int) error {
	seen := map[int]bool{}
	for _, i := range replicas {
		if i < 0 || i >= c.cfg.Replicas || seen[i] {
			return fmt.Errorf("model: read set %v: bad or repeated replica %d", replicas, i)
		}
		seen[i] = true
	}
	if len(c.cfg.DCs) == 0 && len(seen) < c.cfg.R {
		return fmt.Errorf("model: read set %v smaller than R=%d", replicas, c.cfg.R)
	}
	return nil
}

// repair writes each merged cell to the asked replicas whose answer differs.
func (c *Cluster) repair(replicas []int, answers []map[string]StoredCell, merged map[string]StoredCell, table, row string) {
	for k, i := range replicas {
		var stale []StoredCell
		for col, win := range merged {
			if got, ok := answers[k][col]; !ok || !sameCell(got, win) {
				stale = append(stale, win)
			}
		}
		if len(stale) == 0 {
			continue
		}
		sort.Slice(stale, func(a, b int) bool { return stale[a].Column < stale[b].Column })
		if err := c.replicas[i].Apply(table, row, stale...); err != nil {
			panic(fmt.Sprintf("model: read repair: %v", err)) // the cells came from replicas
		}
	}
}

func sameCell(a, b StoredCell) bool {
	return a.Timestamp == b.Timestamp && a.Kind == b.Kind && a.TTL == b.TTL &&
		a.LocalDeletionTime == b.LocalDeletionTime && string(a.Value) == string(b.Value)
}

// liveCells returns the cells of merged live at nowSec, in column order, at
// most limit of them (0: all), as a read returns them.
func liveCells(merged map[string]StoredCell, nowSec int64, limit int) []lockstep.Cell {
	cols := make([]string, 0, len(merged))
	for col, cell := range merged {
		if cell.IsLive(nowSec) {
			cols = append(cols, col)
		}
	}
	sort.Strings(cols)
	if limit > 0 && len(cols) > limit {
		cols = cols[:limit]
	}
	out := make([]lockstep.Cell, len(cols))
	for i, col := range cols {
		out[i] = readCell(merged[col], nowSec)
	}
	return out
}
