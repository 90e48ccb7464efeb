package clock

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/lockstep-go/lockstep"
)

// DefaultGlobalTable is the table holding the global time cell.
const DefaultGlobalTable = "global_time"

const (
	globalRow    = "global_time"
	globalColumn = "global_time"
)

// Global is the global time of seed 000 §5.4: one cell, GlobalTime, whose
// value always equals its write timestamp; since Cassandra keeps the write
// with the highest timestamp, the cell's value never decreases (theorem 5).
//
// [Global.Next] returns a value strictly above every value any process
// obtained from Next before (in real time order), which is what fencing
// tokens need: it reads the cell, picks max(local, global+1, last+1) and
// writes that value back before returning it. [Global.Reserve] draws a
// block of consecutive values the same way and writes the block's last. Every draw raises the cell
// itself, so no separate service process keeps it near wall time
// (docs/algorithms.md, section 5.1, says why none is needed). Safe for
// concurrent use.
type Global struct {
	store lockstep.Store
	table string
	local lockstep.Clock

	mu    sync.Mutex
	last  int64 // the last value of the latest block chosen
	done  int64 // the highest value Drawn counts
	ahead ahead // values drawn ahead, not yet handed out (ahead.go)
}

// NewGlobal returns the service over store, keeping its cell in table (""
// means DefaultGlobalTable). local is this process's clock.
func NewGlobal(store lockstep.Store, table string, local lockstep.Clock) (*Global, error) {
	if store == nil {
		return nil, &lockstep.ConfigError{Field: "Store", Reason: "nil store: pass a cassandra.Store (cassandra.New) or, in tests, a model.Store"}
	}
	if local == nil {
		return nil, &lockstep.ConfigError{Field: "Clock", Reason: "nil clock: pass the process's clock (a clock.Local)"}
	}
	table = cmp.Or(table, DefaultGlobalTable)
	if err := lockstep.ValidateName("table", table); err != nil {
		return nil, err
	}
	return &Global{store: store, table: table, local: local}, nil
}

// Table returns the table holding the global time cell.
func (g *Global) Table() string { return g.table }

// Read returns the current value of the global time cell, 0 when it was
// never written.
func (g *Global) Read(ctx context.Context) (int64, error) {
	cells, err := g.store.Read(ctx, g.table, globalRow, lockstep.Slice{From: globalColumn, To: globalColumn + "\x00", Limit: 1})
	if err != nil {
		return 0, fmt.Errorf("clock: read global time: %w", err)
	}
	if len(cells) == 0 {
		return 0, nil
	}
	return decodeTime(cells[0].Value)
}

// Next returns a time strictly greater than any value returned by Next, on
// any process, whose call completed before this one started: the earlier
// call wrote its value (as value and write timestamp) before returning, this
// call's read starts after that write completed and so sees it or a larger
// value (lemma 1; last write wins keeps the largest), and it returns more.
//
// That is the property fencing tokens are built on. A lock draws its token
// with Next after its claim succeeded and keeps it only if its lease was
// still open when Next returned; a later owner claims only after that
// moment (the first owner's cells lived until then), so it calls Next after
// the first one's call completed and gets a larger token. A token drawn
// without that check, or with a failed Next, breaks the order
// (internal/fencing). Next is Reserve of one value.
func (g *Global) Next(ctx context.Context) (int64, error) { return g.Reserve(ctx, 1) }

// Reserve draws n consecutive values v, v+1, …, v+n−1 and returns v: it
// reads the cell as Next does, picks v = max(local, global+1, last+1) and
// writes v+n−1 (as value and write timestamp) before returning. Every
// draw, on any process, whose call starts after this one completed returns
// more than v+n−1, so the whole block is below it (docs/algorithms.md,
// section 5.1, Lemma 7): a holder may hand the block's later values to its
// successors in memory. n below 1 is refused and nothing is sent.
func (g *Global) Reserve(ctx context.Context, n int) (int64, error) {
	if n < 1 {
		return 0, fmt.Errorf("clock: reserve %d global time values: want at least 1", n)
	}
	return g.reserve(ctx, n, int64(n))
}

// reserve draws n values as Reserve says, and counts the first counted of
// them in Drawn once the draw returns.
func (g *Global) reserve(ctx context.Context, n int, counted int64) (int64, error) {
	global, err := g.Read(ctx)
	if err != nil {
		return 0, err
	}
	t := g.local.Now()
	g.mu.Lock()
	if t <= global {
		t = global + 1
	}
	if t <= g.last {
		t = g.last + 1
	}
	end := t + int64(n) - 1
	g.last = end
	g.mu.Unlock()
	if err := g.write(ctx, end); err != nil {
		return 0, err
	}
	g.mu.Lock()
	g.done = max(g.done, t+counted-1)
	g.mu.Unlock()
	return t, nil
}

// Drawn returns the highest value of a draw of this Global that returned
// (the last of its block, or of the values TakeAhead handed out of a block
// drawn ahead), 0 before the first. Every token kept from a draw
// through this Global is at most Drawn, and every draw on any process that
// starts after such a draw returned gets more (Lemma 7); a Locker recording
// evidence (queuelock.Options.Evidence) writes it beside its releases
// (docs/algorithms.md, section 5.3). A draw still in flight, or one that
// failed, does not count.
func (g *Global) Drawn() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.done
}

func (g *Global) write(ctx context.Context, t int64) error {
	cell := lockstep.Cell{Column: globalColumn, Value: encodeTime(t), Timestamp: t}
	if err := g.store.Put(ctx, g.table, globalRow, cell); err != nil {
		return fmt.Errorf("clock: write global time: %w", err)
	}
	return nil
}

func encodeTime(t int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(t)) }

func decodeTime(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("clock: global time cell holds %d bytes, want 8", len(b))
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}
