// Command lockdpeer is lockbench's lockd contender: one OS process holding
// one lockd session and taking one hot lock id through lockd's Lock and
// Unlock RPCs, timed the way lockbench times its own workers.
//
// It is a module of its own, as the etcd peer is (cmd/lockbench/etcdpeer),
// so that Connect and protobuf, which lockd's generated client needs, stay
// out of lockbench's go.mod; it requires the lockd module through a replace
// (../../../lockd). What it shares with lockbench and the etcd peer — the
// worker protocol's JSON, the acquisition loop and its clock — is
// cmd/lockbench/peer (lockbench's own side is
// cmd/lockbench/worker.go and contend.go; change them together).
//
// lockbench builds it when a run includes the lockd algorithm (-scenario
// service), starts the lockd under test itself (the lockd/cmd/lockd binary,
// on loopback, on the bench's cluster and keyspace) and runs one lockdpeer
// process per contender in place of its own -worker process:
//
//	lockdpeer -worker '{"process":"…","lockd":"http://127.0.0.1:7420","lock_id":"…","k":0,"hold":1000000}'
//
// The protocol on stdin and stdout, one JSON line at a time, is lockbench's:
//
//	worker → parent  {"ready":true}            session open, warmed up
//	parent → worker  {"start":…,"until":…}     once every worker is ready
//	worker → parent  {"result":{…}}            or {"error":"…"}
//
// After its loop the worker times 100 KeepAlive calls of its session, one
// after another: the latency of a plain request to lockd (a loopback round
// trip that takes no lock and touches no store), reported as the result's
// "plain", against which lockd's added latency is judged.
package main
