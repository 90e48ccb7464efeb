package cqlstore

import "fmt"

// RemoteCoordinatorError is the error of a DC-local store's request that a
// node of another data centre coordinated: the session failed over to a
// remote data centre, or was never routed to the store's. LOCAL_QUORUM and
// LOCAL_SERIAL are then the other data centre's quorum, which the lock's
// other contenders do not read, so the store does not take the answer: a
// read fails, and a write fails as an unknown outcome (it may have landed
// in the other data centre). Both wrap lockstep.ErrRefused: a retry through
// the same session's routing cannot help, so Lock fails at once and says
// how to route the session.
type RemoteCoordinatorError struct {
	Host   string // the coordinator's address
	HostDC string // its data centre
	DC     string // the store's data centre
}

func (e *RemoteCoordinatorError) Error() string {
	return fmt.Sprintf("request coordinated by %s in data centre %q, but the store is local to %q: its LOCAL_QUORUM there "+
		"is another data centre's quorum, unseen by the lock's other contenders; route the session to %q only "+
		"(cluster.HostFilter = gocql.DataCentreHostFilter(%q), with TokenAwareHostPolicy(DCAwareRoundRobinPolicy(%q))), "+
		"or make the lock global", e.Host, e.HostDC, e.DC, e.DC, e.DC, e.DC)
}

// CheckCoordinator returns a *RemoteCoordinatorError if a DC-local store
// (dc not empty) got an answer from a coordinator outside dc, nil otherwise
// (a global store, or an unknown coordinator: hostDC empty).
func CheckCoordinator(dc, host, hostDC string) error {
	if dc == "" || hostDC == "" || hostDC == dc {
		return nil
	}
	return &RemoteCoordinatorError{Host: host, HostDC: hostDC, DC: dc}
}
