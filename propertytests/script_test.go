package propertytests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep/model/sim"
)

// A script is a schedule written down: the random-phase actions of one run
// that took effect, each with the choices it made (which process moved,
// which replicas answered, which fault). The simulation is deterministic, so
// replaying a script reproduces the run; scripts are what the minimizer
// works on and what regression seeds store.
type script []action

type action struct {
	Kind    int   `json:"kind"`              // actStep, actTick, …
	Choices []int `json:"choices,omitempty"` // every Choose answer, in order
}

func (s script) String() string {
	var b strings.Builder
	for i, a := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s%v", actNames[a.Kind], a.Choices)
	}
	return b.String()
}

// recorder passes choices through from inner and notes them in *into.
type recorder struct {
	inner sim.Chooser
	into  *[]int
}

func (r recorder) Choose(label string, n int) int {
	v := r.inner.Choose(label, n)
	*r.into = append(*r.into, v)
	return v
}

// replayer answers from a recorded list, clamped to the range asked for, and
// with the benign 0 once the list runs out: after the minimizer deletes an
// action, later ones may be asked different questions, and must still get an
// answer.
type replayer struct {
	choices []int
	next    int
}

func (r *replayer) Choose(_ string, n int) int {
	if r.next >= len(r.choices) || n <= 1 {
		r.next++
		return 0
	}
	v := min(r.choices[r.next], n-1)
	r.next++
	return v
}

// replay runs fleet f with variant v through script sc, checking safety
// after every action, then the quiet phase. It returns the actions that took
// effect (with the choices they actually made) and the first failure,
// the end-of-run state check included.
func replay(t *testing.T, f fleet, v variant, sc script) (script, error) {
	var ran script
	var runErr error
	synctestRun(t, func() {
		h, err := newHarness(f, v, true)
		if err != nil {
			runErr = err
			return
		}
		defer func() {
			if err := h.close(); err != nil && runErr == nil {
				runErr = err
			}
		}()
		for _, a := range sc {
			var made []int
			if !h.act(recorder{&replayer{choices: a.Choices}, &made}, a.Kind) {
				continue
			}
			ran = append(ran, action{a.Kind, made})
			if err := h.checkSafety(); err != nil {
				runErr = fmt.Errorf("%w\ntrace:\n%s", err, h.report())
				return
			}
		}
		if runErr = h.quietPhase(); runErr == nil {
			runErr = h.checkStateFreed()
		}
	})
	return ran, runErr
}

// maxReplays bounds the replays one minimization may spend.
const maxReplays = 4000

// minimize deletes whole actions from a failing script, and then lowers
// choices towards 0, for as long as the run still fails by the property
// want (a prefix of the failure, e.g. "liveness:"): delta debugging over
// actions, after rapid's own shrinking of the draws behind them. rapid's
// shrinker works on the bit stream, under a wall-clock budget, and can stall
// on a schedule whose actions are entangled (tens of actions, where a
// handful fail the same way); this pass is deterministic and cheap, since a
// replay takes milliseconds. It returns the smallest failing script found
// and its failure.
func minimize(t *testing.T, f fleet, v variant, sc script, want string) (script, error) {
	replays := 0
	var lastErr error
	fails := func(cand script) (script, bool) {
		replays++
		ran, err := replay(t, f, v, cand)
		if err != nil && strings.HasPrefix(err.Error(), want) {
			lastErr = err
			return ran, true
		}
		return nil, false
	}
	cur, ok := fails(sc)
	if !ok {
		return sc, fmt.Errorf("script does not fail by %q on replay", want)
	}
	// A fleet that fails with no random phase at all (the arrival storm's
	// control does) needs one replay, not a search.
	if len(cur) > 0 {
		if ran, ok := fails(nil); ok {
			cur = ran
		}
	}
	for changed := true; changed && replays < maxReplays; {
		changed = false
		for chunk := max(len(cur)/2, 1); chunk >= 1 && replays < maxReplays; chunk /= 2 {
			for i := 0; i+chunk <= len(cur) && replays < maxReplays; {
				cand := append(append(script{}, cur[:i]...), cur[i+chunk:]...)
				if ran, ok := fails(cand); ok && len(ran) < len(cur) {
					cur, changed = ran, true
					continue
				}
				i += chunk
			}
		}
		for i := 0; i < len(cur) && replays < maxReplays; i++ {
			for j := 0; i < len(cur) && j < len(cur[i].Choices); j++ {
				if cur[i].Choices[j] == 0 {
					continue
				}
				cand := append(script{}, cur...)
				cand[i] = action{cur[i].Kind, append([]int{}, cur[i].Choices...)}
				cand[i].Choices[j] = 0
				if ran, ok := fails(cand); ok && len(ran) <= len(cur) {
					cur, changed = ran, true
				}
			}
		}
	}
	// Replay the result last, so lastErr is its failure.
	if _, ok := fails(cur); !ok {
		return cur, fmt.Errorf("minimized script stopped failing by %q", want)
	}
	return cur, lastErr
}
