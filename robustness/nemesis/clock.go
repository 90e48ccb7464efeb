package nemesis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// Skew moves node n's wall clock (as Cassandra reads it through
// OffsetClock) by Offset; with Strobe > 0 the offset flaps between 0 and
// Offset every Strobe. Heal sets the offset back to 0.
type Skew struct {
	c      *cluster.Cluster
	n      int
	offset time.Duration
	strobe time.Duration
}

// Bump skews node n by offset (positive: ahead; negative: behind).
func Bump(c *cluster.Cluster, n int, offset time.Duration) *Skew {
	return &Skew{c: c, n: n, offset: offset}
}

// Strobe flaps node n's clock between 0 and offset every period.
func Strobe(c *cluster.Cluster, n int, offset, period time.Duration) *Skew {
	return &Skew{c: c, n: n, offset: offset, strobe: period}
}

func (s *Skew) Name() string {
	if s.strobe > 0 {
		return fmt.Sprintf("skew strobe n%d %+dms/%dms", s.n, s.offset.Milliseconds(), s.strobe.Milliseconds())
	}
	return fmt.Sprintf("skew bump n%d %+dms", s.n, s.offset.Milliseconds())
}

func (s *Skew) Inject(context.Context) error {
	node, err := s.c.Node(s.n)
	if err != nil {
		return err
	}
	line := fmt.Sprint(s.offset.Milliseconds())
	if s.strobe > 0 {
		if s.strobe < time.Millisecond {
			return fmt.Errorf("nemesis: strobe period %v: give at least 1ms", s.strobe)
		}
		line = fmt.Sprintf("strobe %d %d", s.offset.Milliseconds(), s.strobe.Milliseconds())
	}
	return writeClock(node.ClockFile, line)
}

func (s *Skew) Heal(context.Context) error {
	node, err := s.c.Node(s.n)
	if err != nil {
		return err
	}
	return writeClock(node.ClockFile, "0")
}

// writeClock replaces the offset file atomically (OffsetClock re-reads it
// every 20 ms).
func writeClock(path, line string) error {
	if path == "" {
		return fmt.Errorf("nemesis: no clock file: start the cluster with the OffsetClock (LOCKSTEP_CASSANDRA_SKEW_CLOCK=1)")
	}
	tmp := filepath.Join(filepath.Dir(path), ".clock-offset.tmp")
	if err := os.WriteFile(tmp, []byte(line+"\n"), 0o644); err != nil {
		return fmt.Errorf("nemesis: clock file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("nemesis: clock file: %w", err)
	}
	return nil
}

// ClockSettle is how long after a write to the clock file the node surely
// uses the new offset (OffsetClock polls every 20 ms).
const ClockSettle = 100 * time.Millisecond
