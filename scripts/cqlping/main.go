// Command cqlping is the readiness probe of scripts/cassandra: it connects to
// exactly one Cassandra node over CQL and checks that the node answers a real
// query. With -nodes N it also checks, from that node's point of view, that
// the cluster has N members that all own tokens (system.peers), and that at
// least -up K of them (default N) are alive: a range read over
// system_distributed, whose replication factor is 3, at consistency K (TWO,
// THREE) is refused with Unavailable unless the coordinator sees K replicas
// alive. On a 3-node cluster every node replicates every range, so K=3 means
// "all up" and K=2 means "this node and one more"; K<2 is not checked.
//
// It prints one line, e.g. "127.0.0.1 5.0.9 peers=2 all-up", and exits 0 when
// the node is ready; 1 when CQL does not answer; 2 when CQL answers but the
// cluster check fails (the reason goes to stderr; stdout still gets the
// "host version" line).
//
// On the secure node of scripts/cassandra up --secure it takes the
// credentials and TLS files: -username, -password-file, -tls-ca, -tls-cert,
// -tls-key (see scripts/internal/cqlconn).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/scripts/internal/cqlconn"
)

func main() {
	host := flag.String("host", "127.0.0.1", "node address (only this node is contacted)")
	port := flag.Int("port", 9042, "CQL native transport port")
	nodes := flag.Int("nodes", 0, "if > 0: expect a cluster of this many nodes")
	up := flag.Int("up", -1, "with -nodes: how many nodes must be alive (default: all)")
	timeout := flag.Duration("timeout", 5*time.Second, "connect and query timeout")
	verbose := flag.Bool("v", false, "let the driver log to stderr")
	var sec cqlconn.Flags
	sec.Register(flag.CommandLine)
	flag.Parse()

	if !*verbose {
		gocql.Logger = log.New(io.Discard, "", 0)
	}
	if *up < 0 || *up > *nodes {
		*up = *nodes
	}
	line, err := probe(*host, *port, *nodes, *up, *timeout, &sec)
	if line != "" {
		fmt.Println(line)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cqlping %s:%d: %v\n", *host, *port, err)
		if line != "" {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func probe(host string, port, nodes, up int, timeout time.Duration, sec *cqlconn.Flags) (string, error) {
	cluster := gocql.NewCluster(host)
	if err := sec.Apply(cluster); err != nil {
		return "", err
	}
	cluster.Port = port
	cluster.ProtoVersion = 4
	cluster.Timeout = timeout
	cluster.ConnectTimeout = timeout
	cluster.DisableInitialHostLookup = true
	cluster.HostFilter = gocql.WhiteListHostFilter(host)
	cluster.Events.DisableNodeStatusEvents = true
	cluster.Events.DisableTopologyEvents = true
	cluster.Events.DisableSchemaEvents = true
	cluster.Consistency = gocql.One

	session, err := cluster.CreateSession()
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer session.Close()

	var version string
	if err := session.Query(`SELECT release_version FROM system.local`).Scan(&version); err != nil {
		return "", fmt.Errorf("select release_version: %w", err)
	}
	line := host + " " + version
	if nodes <= 0 {
		return line, nil
	}

	// From here on, CQL works: errors come back with the "host version" line.
	// Every other member must be known with its tokens (i.e. it has joined).
	iter := session.Query(`SELECT peer, tokens FROM system.peers`).Iter()
	var (
		peer   string
		tokens []string
		joined []string
	)
	for iter.Scan(&peer, &tokens) {
		if len(tokens) > 0 {
			joined = append(joined, peer)
		}
	}
	if err := iter.Close(); err != nil {
		return line, fmt.Errorf("select system.peers: %w", err)
	}
	sort.Strings(joined)
	if len(joined) != nodes-1 {
		return line, fmt.Errorf("%d peers with tokens [%s], want %d", len(joined), strings.Join(joined, " "), nodes-1)
	}

	// Enough replicas must be alive in this coordinator's eyes. (A consistency
	// of K waits for K replicas of RF 3, so with fewer than 3 nodes it could
	// never succeed; there is nothing to check below K=2 anyway.)
	var cl gocql.Consistency
	switch {
	case nodes < 3 || up < 2:
		return fmt.Sprintf("%s peers=%d", line, len(joined)), nil
	case up == 2:
		cl = gocql.Two
	default:
		cl = gocql.Three
	}
	q := session.Query(`SELECT keyspace_name FROM system_distributed.repair_history LIMIT 1`).Consistency(cl)
	if err := q.Iter().Close(); err != nil {
		var unavailable *gocql.RequestErrUnavailable
		if errors.As(err, &unavailable) {
			return line, fmt.Errorf("fewer than %d nodes alive: %v", up, err)
		}
		return line, fmt.Errorf("read at %v: %w", cl, err)
	}
	if up == nodes {
		return fmt.Sprintf("%s peers=%d all-up", line, len(joined)), nil
	}
	return fmt.Sprintf("%s peers=%d up>=%d", line, len(joined), up), nil
}
