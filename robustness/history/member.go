package history

import (
	"fmt"
	"strings"
)

// Accesses are the lock accesses a member may name, as lockstep.Access
// prints them.
var Accesses = []string{"X", "S", "IS", "IX", "SIX"}

// Member renders one request of a lock-manager acquisition: "<id>:<access>".
func Member(id, access string) string { return id + ":" + access }

// ParseMember splits "<id>:<access>" at its last colon and checks the
// access is one of Accesses and the id is not empty.
func ParseMember(m string) (id, access string, err error) {
	i := strings.LastIndexByte(m, ':')
	if i <= 0 {
		return "", "", fmt.Errorf("member %q: want <id>:<access>, access one of %v", m, Accesses)
	}
	id, access = m[:i], m[i+1:]
	for _, a := range Accesses {
		if a == access {
			return id, access, nil
		}
	}
	return "", "", fmt.Errorf("member %q: unknown access %q (want one of %v)", m, access, Accesses)
}
