package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// Transfers hand a held queue lock (ids tx-0, tx-1) to another process
// through files in --handover-dir, which the runner gives every
// lock-manager worker of a segment:
//
//	giver:     Lock, critical section, Share, write offer.<giver>.<seq>.json
//	successor: rename it to claim.<giver>.<seq>.<successor>.json (one wins),
//	           Adopt, write ack.<giver>.<seq> ("ok" or the error)
//	giver:     on "ok", Unlock (it leaves; the successor holds on)
//	successor: critical section under the same owner and token, Unlock
//
// A giver whose offer nobody claimed within offerWait takes it back (a
// rename of its own) and unlocks as usual. A migration.Locker is no
// Sharer, so the transfers take their locks with a queuelock.Locker of
// their own, on ids no other worker takes.

// offerWait is how long an offer waits for a successor; ackWait how long a
// claimed offer waits for the successor's Adopt.
const (
	offerWait = 2 * time.Second
	ackWait   = 10 * time.Second
)

// offer is what a giver writes for its successor.
type offer struct {
	Handover string `json:"handover"`
	ID       string `json:"id"`
	Owner    string `json:"owner"`
	Token    int64  `json:"token"`
	Share    string `json:"share"`
}

// transferHold is one hold of a tx- id: Lock, the critical section, and, 3
// times in 4, a handover to another worker before the Unlock.
func (m *lockman) transferHold(ctx context.Context) {
	m.transferHoldOf(ctx, fmt.Sprintf("tx-%d", m.rng.IntN(transferIDs)))
}

// transferHoldOf is transferHold on id.
func (m *lockman) transferHoldOf(ctx context.Context, id string) {
	lctx, cancel := context.WithTimeout(ctx, m.c.lockTimeout)
	inv := m.clk.Now()
	l, err := m.tx.Lock(lctx, id)
	cancel()
	e := history.Event{Op: history.EvAcquire, ID: id, Access: "X", InvokeNS: inv, ReturnNS: m.clk.Now(), Outcome: history.OK}
	if err != nil {
		e.Outcome, e.Err = history.Fail, err.Error()
		m.record(e)
		m.sleep(ctx, time.Duration(m.rng.Int64N(int64(100*time.Millisecond))))
		return
	}
	h := &mheld{id: id, access: "X", l: l, lastOpen: e.ReturnNS}
	e.Owner, e.Token = l.Owner(), token(l)
	m.record(e)
	m.stats.holds++
	m.critical(h, id, e.Token)
	if m.rng.IntN(4) == 0 || !m.open(h) {
		m.release(h)
		return
	}
	m.handOver(ctx, h, e.Owner, e.Token)
}

// handOver shares h, offers it, and unlocks once the successor adopted it
// (or nobody claimed it, or the claim failed). Planted early-leave unlocks
// first and offers afterwards.
func (m *lockman) handOver(ctx context.Context, h *mheld, owner string, tok int64) {
	m.handSeq++
	name := fmt.Sprintf("%s#%d", m.c.process, m.handSeq)
	file := fmt.Sprintf("%s.%d", m.c.process, m.handSeq)
	e := history.Event{Op: history.EvShare, ID: h.id, InvokeNS: m.clk.Now(), Owner: owner, Token: tok, Handover: name, Outcome: history.Fail}
	share, err := m.tx.Share(h.l)
	if err != nil {
		e.ReturnNS, e.Err = m.clk.Now(), err.Error()
		m.record(e)
		m.release(h)
		return
	}
	early := m.plants["early-leave"]
	if early {
		m.release(h) // planted: the giver leaves (deletes the cells) before anyone adopts
		time.Sleep(300 * time.Millisecond)
	}
	m.stats.offered++
	o := offer{Handover: name, ID: h.id, Owner: owner, Token: tok, Share: share}
	offerPath := filepath.Join(m.c.handoverDir, "offer."+file+".json")
	if err := writeAtomic(offerPath, o); err != nil {
		e.ReturnNS, e.Err = m.clk.Now(), err.Error()
		m.record(e)
		if !early {
			m.release(h)
		}
		return
	}
	if early {
		// Planted, continued: once a successor claimed the offer, the
		// giver takes the id again at once, a new owner in the gap.
		claimed := m.awaitClaim(offerPath)
		e.ReturnNS = m.clk.Now()
		if claimed {
			e.Outcome, e.Err = history.OK, "planted: left before the successor adopted"
		}
		m.record(e)
		if claimed {
			m.transferHoldOf(ctx, h.id)
		}
		return
	}
	ack, err := m.awaitAck(offerPath, file)
	e.ReturnNS = m.clk.Now()
	switch {
	case err != nil:
		e.Err = err.Error()
	case ack != "ok":
		e.Err = "successor: " + ack
	default:
		e.Outcome = history.OK
		m.stats.handedOver++
	}
	m.record(e)
	m.release(h)
}

// awaitClaim waits up to offerWait for a successor to claim the offer at
// offerPath, and takes it back if none did.
func (m *lockman) awaitClaim(offerPath string) bool {
	for start := time.Now(); time.Since(start) < offerWait; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(offerPath); errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return os.Rename(offerPath, offerPath+".withdrawn") != nil
}

// awaitAck waits for the successor's ack of the offer at offerPath: it
// takes the offer back if nobody claimed it within offerWait.
func (m *lockman) awaitAck(offerPath, file string) (string, error) {
	ackPath := filepath.Join(m.c.handoverDir, "ack."+file)
	start := time.Now()
	for {
		if b, err := os.ReadFile(ackPath); err == nil {
			return strings.TrimSpace(string(b)), nil
		}
		if time.Since(start) > offerWait {
			if err := os.Rename(offerPath, offerPath+".withdrawn"); err == nil {
				return "", errors.New("no successor claimed the offer")
			}
		}
		if time.Since(start) > offerWait+ackWait {
			return "", errors.New("the successor claimed the offer but sent no ack")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// takeOffer claims another worker's offer, if there is one, adopts the
// lock, acks, and finishes the critical section under the giver's token.
// It reports whether it claimed one.
func (m *lockman) takeOffer(ctx context.Context) bool {
	entries, err := os.ReadDir(m.c.handoverDir)
	if err != nil {
		return false
	}
	var offers []string
	for _, d := range entries {
		n := d.Name()
		if strings.HasPrefix(n, "offer.") && strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, "offer."+m.c.process+".") {
			offers = append(offers, n)
		}
	}
	sort.Strings(offers)
	for _, n := range offers {
		file := strings.TrimSuffix(strings.TrimPrefix(n, "offer."), ".json")
		claim := filepath.Join(m.c.handoverDir, "claim."+file+"."+m.c.process+".json")
		if os.Rename(filepath.Join(m.c.handoverDir, n), claim) != nil {
			continue // another successor, or the giver, was first
		}
		m.adopt(ctx, claim, filepath.Join(m.c.handoverDir, "ack."+file))
		return true
	}
	return false
}

func (m *lockman) adopt(ctx context.Context, claim, ackPath string) {
	var o offer
	b, err := os.ReadFile(claim)
	if err == nil {
		err = json.Unmarshal(b, &o)
	}
	if err != nil {
		_ = writeAtomic(ackPath, "bad offer: "+err.Error())
		return
	}
	actx, cancel := context.WithTimeout(ctx, m.c.lockTimeout)
	e := history.Event{Op: history.EvAdopt, ID: o.ID, Access: "X", Owner: o.Owner, Token: o.Token, Handover: o.Handover, InvokeNS: m.clk.Now()}
	l, err := m.tx.Adopt(actx, o.Share)
	cancel()
	e.ReturnNS = m.clk.Now()
	pretend := err != nil && m.plants["early-leave"]
	switch {
	case err == nil:
		e.Outcome = history.OK
		if l.Owner() != o.Owner || token(l) != o.Token {
			e.Err = fmt.Sprintf("adopted owner %s token %d, offered %s %d", l.Owner(), token(l), o.Owner, o.Token)
		}
	case pretend:
		// Planted: the successor records the hold as continuous although
		// Adopt found the lock released.
		e.Outcome, e.Err = history.OK, "planted: adopt failed, recorded as held: "+err.Error()
	default:
		e.Outcome, e.Err = history.Fail, err.Error()
	}
	m.record(e)
	ack := "ok"
	if err != nil && !pretend {
		ack = err.Error()
	}
	if werr := writeAtomic(ackPath, ack); werr != nil {
		fmt.Fprintln(os.Stderr, "rbworker: ack:", werr)
	}
	if e.Outcome != history.OK {
		return
	}
	m.stats.adopted++
	if pretend {
		// No lock to look at or unlock: work, write, and record the
		// release as if the hold had lasted throughout.
		m.critical(nil, o.ID, o.Token)
		now := m.clk.Now()
		m.record(history.Event{Op: history.EvRelease, ID: o.ID, InvokeNS: now, ReturnNS: now, Outcome: history.OK, ValidNS: now})
		return
	}
	h := &mheld{id: o.ID, access: "X", l: l, lastOpen: e.ReturnNS}
	m.critical(h, o.ID, o.Token)
	m.release(h)
}

// critical reads the fenced register with the token and the counter,
// works up to --hold, and writes both incremented, looking at Lost()
// before the reads and after the writes (h nil: a planted hold with no
// lock to look at: id alone).
func (m *lockman) critical(h *mheld, id0 string, tok int64) {
	ctx := context.Background()
	id := id0
	open := func() bool { return true }
	if h != nil {
		id, open = h.id, func() bool { return m.open(h) }
	}
	if id == "" || !open() {
		return
	}
	v, _, err := m.reg.ReadFenced(ctx, id, tok)
	if err != nil {
		return
	}
	c, err := m.reg.ReadCounter(ctx, id)
	if err != nil || !open() {
		return
	}
	m.sleep(ctx, time.Duration(m.rng.Int64N(int64(m.c.hold)+1)))
	inv := m.clk.Now()
	ok, err := m.reg.WriteFenced(ctx, id, tok, v, v+1)
	m.recordWrite(id, history.Fenced, tok, inv, v, ok, err)
	inv = m.clk.Now()
	err = m.reg.WriteCounter(ctx, id, c, c+1)
	m.recordWrite(id, history.Counter, tok, inv, c, true, err)
	open()
}

func (m *lockman) recordWrite(id, reg string, tok, inv, read int64, accepted bool, err error) {
	e := history.Event{Op: history.EvWrite, ID: id, Token: tok, InvokeNS: inv, ReturnNS: m.clk.Now(), Outcome: history.OK,
		Register: reg, Read: read, Value: read + 1}
	switch {
	case err != nil:
		e.Outcome, e.ReturnNS, e.Err = history.Unknown, history.Never, err.Error()
	case !accepted:
		e.Outcome = history.Fail
	case reg == history.Fenced:
		m.stats.writes++
	}
	m.record(e)
}

// writeAtomic writes v (a string as is, anything else as JSON) to path
// through a rename, so a reader sees all of it or nothing.
func writeAtomic(path string, v any) error {
	var b []byte
	if s, ok := v.(string); ok {
		b = []byte(s)
	} else {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return err
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// token is l's fencing token, 0 if it has none.
func token(l lockstep.Lock) int64 {
	if f, ok := l.(lockstep.Fenced); ok {
		return f.Token()
	}
	return 0
}
