package model

import "sync/atomic"

// Stats counts what a Store did since it was created or since ResetStats.
type Stats struct {
	Reads   int64 // Read calls served
	Puts    int64 // Put calls applied
	Deletes int64 // Delete calls applied
	Applies int64 // Apply calls applied (replica-level writes)
	Scans   int64 // Scan calls served (replica-level reads)
	// TombstonesScanned is the total number of tombstones and expired cells
	// that Read and Scan stepped over inside their slices, as Cassandra counts
	// tombstones per read (tombstone_warn_threshold).
	TombstonesScanned int64
	// MaxTombstonesPerRead is the most tombstones one Read or Scan stepped
	// over.
	MaxTombstonesPerRead int64
	// LastReadTombstones is what the most recently finished Read or Scan
	// stepped over.
	LastReadTombstones int64
	// Purged is the number of cells compaction dropped.
	Purged int64
}

// statCounters holds the live counters behind Stats.
type statCounters struct {
	reads, puts, deletes, applies, scans atomic.Int64
	tombstones, maxTombstones, last      atomic.Int64
	purged                               atomic.Int64
}

// recordScan accounts for one read that stepped over dead cells.
func (c *statCounters) recordScan(dead int) {
	d := int64(dead)
	c.tombstones.Add(d)
	c.last.Store(d)
	for {
		m := c.maxTombstones.Load()
		if d <= m || c.maxTombstones.CompareAndSwap(m, d) {
			return
		}
	}
}

// Stats returns the store's counters. Each counter is read atomically; the
// set is not a snapshot of one instant while other calls run.
func (s *Store) Stats() Stats {
	c := &s.stats
	return Stats{
		Reads:                c.reads.Load(),
		Puts:                 c.puts.Load(),
		Deletes:              c.deletes.Load(),
		Applies:              c.applies.Load(),
		Scans:                c.scans.Load(),
		TombstonesScanned:    c.tombstones.Load(),
		MaxTombstonesPerRead: c.maxTombstones.Load(),
		LastReadTombstones:   c.last.Load(),
		Purged:               c.purged.Load(),
	}
}

// ResetStats sets every counter to zero.
func (s *Store) ResetStats() {
	c := &s.stats
	for _, v := range []*atomic.Int64{&c.reads, &c.puts, &c.deletes, &c.applies, &c.scans,
		&c.tombstones, &c.maxTombstones, &c.last, &c.purged} {
		v.Store(0)
	}
}
