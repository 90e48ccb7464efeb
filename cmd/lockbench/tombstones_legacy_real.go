package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/shadowlock"
)

// runLegacyTombstonesCommand runs -scenario tombstones -algorithms legacy.
func runLegacyTombstonesCommand(o *options, cfg tombstoneConfig, started time.Time) error {
	if o.gcGrace <= 0 || o.gcGrace%time.Second != 0 {
		return fmt.Errorf("-gc-grace must be a positive whole number of seconds, got %v", o.gcGrace)
	}
	if o.backend == "cassandra" {
		return runRealLegacyTombstonesCommand(o.real, cfg, o.gcGrace)
	}
	samples, err := runSimLegacyTombstones(context.Background(), cfg, o.gcGrace)
	if err != nil {
		return err
	}
	fmt.Printf("lockbench: %d sequential acquisitions of one id with the legacy algorithm, embedded model, gc_grace %v\n"+
		"(virtual time, one acquisition every %v; tombstones and expired cells stepped over per read of the main and shadow rows)\n\n",
		cfg.n, o.gcGrace, cfg.period)
	printLegacyTombstones(os.Stdout, cfg, o.gcGrace, samples)
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	return nil
}

// tombstoneTrace matches the trace event in which a replica reports what a
// read stepped over ("Read 1 live rows and 1234 tombstone cells").
var tombstoneTrace = regexp.MustCompile(`Read (\d+) live rows? and (\d+) tombstone cells`)

// tracedTombstones reads one partition of table with tracing on and returns
// the tombstone cells the replica reported stepping over, from the trace
// (system_traces.events, written asynchronously: polled for a while; read
// at ONE, as system_traces has its own replication).
func tracedTombstones(ctx context.Context, s *gocql.Session, keyspace, table, row string) (int, error) {
	var id []byte
	q := s.Query(fmt.Sprintf("SELECT column_name FROM %s.%s WHERE row_key = ?", keyspace, table), row).
		WithContext(ctx).Trace(tracerFunc(func(traceID []byte) { id = traceID }))
	if err := q.Exec(); err != nil {
		return 0, err
	}
	if id == nil {
		return 0, fmt.Errorf("no trace id for the read of %s", table)
	}
	for range 50 {
		iter := s.Query("SELECT activity FROM system_traces.events WHERE session_id = ?", gocql.UUID(id)).Consistency(gocql.One).WithContext(ctx).Iter()
		var activity string
		best := -1
		for iter.Scan(&activity) {
			if m := tombstoneTrace.FindStringSubmatch(activity); m != nil {
				n, _ := strconv.Atoi(m[2])
				best = max(best, n)
			}
		}
		if err := iter.Close(); err != nil {
			return 0, err
		}
		if best >= 0 {
			return best, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, fmt.Errorf("the trace of the read of %s reported no tombstone count", table)
}

// tracerFunc is a gocql.Tracer that hands over the trace id.
type tracerFunc func(traceID []byte)

func (f tracerFunc) Trace(traceID []byte) { f(traceID) }

// runRealLegacyTombstonesCommand makes cfg.n sequential legacy acquisitions
// of one fresh id on a real cluster whose legacy tables are altered to
// gcGrace, and reports, at each checkpoint, the latency of the algorithm's
// reads over the window and the tombstones a traced read of each row
// stepped over.
func runRealLegacyTombstonesCommand(o realOptions, cfg tombstoneConfig, gcGrace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	version, err := prepareCassandra(ctx, o)
	cancel()
	if err != nil {
		return err
	}
	s, err := connect(splitList(o.hosts))
	if err != nil {
		return err
	}
	defer s.Close()
	secs := int64(gcGrace / time.Second)
	for _, t := range []string{shadowlock.DefaultMainTable, shadowlock.DefaultShadowTable} {
		// As schema.WithLegacyTTL sets them: compaction interval and
		// memtable flush period follow gc_grace.
		stmt := fmt.Sprintf("ALTER TABLE %s.%s WITH gc_grace_seconds = %d AND memtable_flush_period_in_ms = %d AND compaction = "+
			"{'class': 'LeveledCompactionStrategy', 'unchecked_tombstone_compaction': 'true', 'tombstone_compaction_interval': '%d'}",
			o.keyspace, t, secs, secs*1000, secs)
		if err := s.Query(stmt).Exec(); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	inner, err := newCassandraStore(s, o.keyspace)
	if err != nil {
		return err
	}
	store := &timedStore{Store: inner, on: true}
	tag := runTag()
	l, err := shadowlock.New(store, &shadowlock.Options{ProcessID: "tomb-" + tag})
	if err != nil {
		return err
	}
	defer l.Close(context.Background())
	id := "legacy-tombstones-" + tag
	started := time.Now()
	fmt.Printf("lockbench: %d sequential acquisitions of one id with the legacy algorithm, Cassandra %s at %s, gc_grace %v\n\n",
		cfg.n, version, o.hosts, gcGrace)
	fmt.Println("after acquisitions\treads\tp50\tp99\tacq/s\ttombstones read: main\tshadow")
	marks := cfg.checkpoints()
	windowStart := time.Now()
	bg := context.Background()
	for done := 0; done < cfg.n; {
		h, err := l.Lock(bg, id)
		if err != nil {
			return fmt.Errorf("acquisition %d: %w", done+1, err)
		}
		if err := h.Unlock(bg); err != nil {
			return fmt.Errorf("release %d: %w", done+1, err)
		}
		done++
		if len(marks) > 0 && done == marks[0] {
			reads := store.record(false)
			rate := float64(cfg.window) / time.Since(windowStart).Seconds()
			m, merr := tracedTombstones(bg, s, o.keyspace, shadowlock.DefaultMainTable, id)
			sh, serr := tracedTombstones(bg, s, o.keyspace, shadowlock.DefaultShadowTable, id)
			if merr != nil || serr != nil {
				return fmt.Errorf("traced reads after %d acquisitions: %v; %v", done, merr, serr)
			}
			fmt.Printf("%d\t%d\t%s\t%s\t%.0f\t%d\t%d\n", done, len(reads), ms(percentile(reads, 50)), ms(percentile(reads, 99)), rate, m, sh)
			marks = marks[1:]
		}
		if len(marks) > 0 && done == marks[0]-cfg.window {
			store.record(true)
			windowStart = time.Now()
		}
	}
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	return nil
}
