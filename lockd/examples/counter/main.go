// Command counter is one worker of seed 003's counter scenario: it adds 1
// to a shared counter file K times, each time under a lockd lock on one id,
// and records entering and leaving the critical section in an events file.
// Workers in Go, PHP (lockd/php/tests/bin/counter.php) and Python
// (lockd/php/tests/bin/counter.py) run it on the same id; with mutual
// exclusion the counter ends at N·K and no two workers are ever inside at
// once (lockd/php/tests/CounterTest.php checks both).
//
//	go run -C lockd ./examples/counter -addr http://127.0.0.1:7420 -id counter -file /tmp/c -events /tmp/e -k 20 -name go-1
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/lockd/client"
)

func main() {
	addr := flag.String("addr", "", "lockd's URL (http://host:port)")
	id := flag.String("id", "counter", "the lock id every worker takes")
	file := flag.String("file", "", "the counter file")
	events := flag.String("events", "", "the events file: a line \"enter NAME\" and \"leave NAME\" per increment")
	k := flag.Int("k", 20, "increments")
	name := flag.String("name", "go", "this worker's name in the events file")
	flag.Parse()
	if *addr == "" || *file == "" || *events == "" || *k < 1 {
		fmt.Fprintln(os.Stderr, "counter: -addr, -file and -events are required, and -k at least 1")
		os.Exit(2)
	}
	if err := run(*addr, *id, *file, *events, *k, *name); err != nil {
		fmt.Fprintln(os.Stderr, "counter:", err)
		os.Exit(1)
	}
}

func run(addr, id, file, events string, k int, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := client.Open(ctx, addr, &client.Options{Name: name})
	if err != nil {
		return err
	}
	defer s.Close(context.WithoutCancel(ctx))
	for range k {
		l, err := s.Lock(ctx, id)
		if err != nil {
			return err
		}
		if err := increment(file, events, name); err != nil {
			return err
		}
		select {
		case <-l.Lost():
			return fmt.Errorf("lock %s lost during an increment", id)
		default:
		}
		if err := l.Unlock(context.WithoutCancel(ctx)); err != nil {
			return err
		}
	}
	return nil
}

// increment is the critical section: a read-modify-write of the counter
// that loses updates unless the workers exclude each other, between an
// enter and a leave event.
func increment(file, events, name string) error {
	if err := event(events, "enter "+name); err != nil {
		return err
	}
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	time.Sleep(time.Millisecond) // widen the window a lost update needs
	if err := os.WriteFile(file, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		return err
	}
	return event(events, "leave "+name)
}

func event(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
