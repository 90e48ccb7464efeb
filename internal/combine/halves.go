package combine

import (
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/internal/shadow"
)

// CheckHalves refuses options of the two halves that a composing Locker
// (package combined, package migration: owner names it in the errors)
// sets once for both: the separator (ancestors are taken once, for both
// halves), fencing (one token per combined lock), deadlock detection (the
// composer's waits are published) and, when process is not "", a process
// id other than process (one Locker is one process). It returns a
// *lockstep.ConfigError naming the field and changes nothing.
func CheckHalves(owner string, q *queue.Options, s *shadow.Options, process string) error {
	qo, so := deref.Of(q), deref.Of(s)
	once := func(field, why string) error {
		return &lockstep.ConfigError{Field: "Queue." + field + "/Legacy." + field,
			Reason: fmt.Sprintf("set %s Options.%s and leave the halves' unset: %s", owner, field, why)}
	}
	switch {
	case qo.Separator != "" || so.Separator != "":
		return once("Separator", "a composed lock takes an id's ancestors once, for every half")
	case qo.Fencing != nil || so.Fencing != nil:
		return once("Fencing", "a combined lock draws one token for both halves")
	case qo.Deadlock != nil || so.Deadlock != nil:
		return once("Deadlock", "the composed Locker's waits are the ones published")
	case process != "" && (qo.ProcessID != "" && qo.ProcessID != process || so.ProcessID != "" && so.ProcessID != process):
		return &lockstep.ConfigError{Field: "Queue.ProcessID/Legacy.ProcessID",
			Reason: fmt.Sprintf("one process has one id (%q, %s Options.ProcessID): leave these unset (or equal to it)", process, owner)}
	}
	return nil
}
