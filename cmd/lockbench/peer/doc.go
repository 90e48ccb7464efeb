// Package peer is the worker side of lockbench's worker protocol for the
// peers that run in modules of their own (cmd/lockbench/etcdpeer and
// cmd/lockbench/lockdpeer), so that etcd's and Connect's dependencies stay
// out of lockbench's go.mod: the job's common fields, the start line, the
// reports, and the loop each worker runs. lockbench's own side of the
// protocol is cmd/lockbench/worker.go and contend.go; the JSON shapes here
// must stay equal to those (peer_test.go pins them, and each peer's tests
// and lockbench's pin the same literals).
//
// It is not internal to lockbench's module because the peers, which import
// it, are modules of their own. It imports only the standard library, so a peer that imports it builds
// nothing of lockbench's own dependencies.
package peer
