// Command dispatch is seed 004's message dispatcher, run through lockd:
// services receive messages tagged with hierarchical keys (a bank, its
// currencies, their accounts) and process each one only when none of its
// keys has a locked ancestor or descendant, in the order the messages were
// delivered, with the processing itself running in parallel.
//
//	go run -C lockd ./examples/dispatch                     # a lockd of its own, on the embedded model
//	go run -C lockd ./examples/dispatch -addr http://HOST:PORT -token T  # a running lockd
//
// # The algorithm (after V. S. Kirillov, "Using hierarchical indexing for
// access control to shared resources in microservices", 2024)
//
// Each service instance keeps its messages in delivery order, and a pool
// of workers. Its dispatcher looks only at the head message: it waits for
// a free worker, then asks lockd for the message's keys as one lock group
// (all or nothing), each key exclusive, on that worker's session; only
// when the group is granted does it hand the message over and move to the
// next. So a message never starts before an earlier one of the same
// instance, and the dispatcher waits, holding nothing, while the head's
// keys are busy. The worker processes the message and unlocks the group.
//
// The paper keeps a list of the keys in use and checks each new key
// against it for ancestors and descendants. Here lockd's hierarchy does
// that, across every instance of every service that uses the same lockd
// fleet: a key "bank/usd/acc1" is taken exclusive and its ancestors "bank"
// and "bank/usd" intention-exclusive (IX), so a message on "bank/usd"
// (exclusive) conflicts with it through the IX on "bank/usd", a message on
// a sibling "bank/usd/acc2" does not (IX is compatible with IX), and one on
// "bank" waits for both. A group is granted whole or not at all, so a
// message with two keys (a conversion between two accounts) cannot hold one
// and wait for the other: no deadlock between dispatchers.
//
// Every worker has a session of its own: lockd grants a session's second
// request for ids it already holds by reentrancy, so two messages sharing
// a session could run on the same key at once.
//
// The command checks what it claims, from outside lockd: it records each
// message's processing interval, and at the end counts pairs of messages
// whose keys are related (equal, ancestor or descendant) and whose
// intervals overlap (must be 0), messages of one instance that started out
// of delivery order (must be 0), and the most messages in process at once
// (more than one shows the parallelism). It exits 1 if a check fails.
package main
