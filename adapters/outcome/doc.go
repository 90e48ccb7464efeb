// Package outcome turns the Observer's events (lockstep.AcquireEvent,
// ReleaseEvent, LeaseEvent) into the small, bounded sets of label values the
// metrics adapters (adapters/prometheus, adapters/otel) export, so that both
// name the same outcomes the same way and neither ever exports a lock id, an
// owner or an error text.
//
// It is a public package of the library module, so that the adapters, each
// a module of its own, share it (a module never imports another module's
// internal packages), and so that any other metrics adapter can export the
// same label values. It pulls nothing new into the library: it depends on
// the root package and on package migration (for the refusal and
// stale-census errors) only. Its label values are part of the adapters'
// exported metrics: a change to one is a change to every dashboard that
// reads it, made only with an entry in CHANGELOG.md.
//
// Every classification is a switch over errors.Is / errors.AsType on the
// event's error, done only for events that carry one: a successful
// acquisition costs one comparison.
package outcome
