// Package outcome turns the Observer's events (lockstep.AcquireEvent,
// ReleaseEvent, LeaseEvent) into the small, bounded sets of label values the
// metrics adapters (adapters/prometheus, adapters/otel) export, so that both
// name the same outcomes the same way and neither ever exports a lock id, an
// owner or an error text.
//
// It lives in the library module, under adapters/internal, so that only the
// adapters can import it and the adapters' modules pull nothing new into the
// library: it depends on the root package and on package migration (for the
// refusal and stale-census errors) only.
//
// Every classification is a switch over errors.Is / errors.AsType on the
// event's error, done only for events that carry one: a successful
// acquisition costs one comparison.
package outcome
