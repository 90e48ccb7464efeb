package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/scripts/internal/cqlconn"
)

var roleName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

func main() {
	host := flag.String("host", "127.0.0.1", "node address")
	port := flag.Int("port", 9042, "CQL native transport port")
	superuser := flag.String("superuser", "lockstep_root", "name of the superuser to create")
	out := flag.String("new-password-file", "", "where to write the new superuser's password (required)")
	timeout := flag.Duration("timeout", 20*time.Second, "connect and query timeout")
	var sec cqlconn.Flags
	sec.Register(flag.CommandLine)
	flag.Parse()
	gocql.Logger = log.New(io.Discard, "", 0)
	if *out == "" || !roleName.MatchString(*superuser) || *superuser == "cassandra" {
		fmt.Fprintln(os.Stderr, "cqlsecure: need -new-password-file and a -superuser name of [a-z0-9_] other than cassandra")
		os.Exit(2)
	}
	if err := run(*host, *port, *timeout, sec, *superuser, *out); err != nil {
		fmt.Fprintf(os.Stderr, "cqlsecure %s: %v\n", *host, err)
		os.Exit(1)
	}
	fmt.Printf("superuser %s created (password in %s); default role cassandra dropped\n", *superuser, *out)
}

func run(host string, port int, timeout time.Duration, sec cqlconn.Flags, superuser, out string) error {
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	password := base64.RawURLEncoding.EncodeToString(buf) // no quote can occur
	if err := os.WriteFile(out, []byte(password+"\n"), 0o600); err != nil {
		return err
	}

	s, err := connect(host, port, timeout, sec)
	if err != nil {
		return fmt.Errorf("log in as %s: %w", sec.Username, err)
	}
	err = s.Query(fmt.Sprintf(`CREATE ROLE IF NOT EXISTS %s WITH SUPERUSER = true AND LOGIN = true AND PASSWORD = '%s'`, superuser, password)).Exec()
	s.Close()
	if err != nil {
		return fmt.Errorf("create role %s: %w", superuser, err)
	}

	old, oldFile := sec.Username, sec.PasswordFile
	sec.Username, sec.PasswordFile = superuser, out
	s, err = connect(host, port, timeout, sec)
	if err != nil {
		return fmt.Errorf("log in as the new superuser %s: %w", superuser, err)
	}
	defer s.Close()
	if err := s.Query(`DROP ROLE IF EXISTS ` + old).Exec(); err != nil {
		return fmt.Errorf("drop role %s: %w", old, err)
	}

	// The old login must now be refused by the authenticator.
	sec.Username, sec.PasswordFile = old, oldFile
	if s2, err := connect(host, port, timeout, sec); err == nil {
		s2.Close()
		return errors.New("the login " + old + " still works after DROP ROLE")
	}
	return nil
}

func connect(host string, port int, timeout time.Duration, sec cqlconn.Flags) (*gocql.Session, error) {
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.Timeout = timeout
	cluster.ConnectTimeout = timeout
	cluster.DisableInitialHostLookup = true
	cluster.HostFilter = gocql.WhiteListHostFilter(host)
	cluster.Consistency = gocql.One
	if err := sec.Apply(cluster); err != nil {
		return nil, err
	}
	return cluster.CreateSession()
}
