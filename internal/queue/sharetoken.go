package queue

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/lockstep-go/lockstep"
)

// The share token (Share, Adopt): what a receiver needs to continue a held
// lock's lease. It is "qs1." followed by the unpadded base64url of a
// 4-byte big-endian CRC-32C of the JSON body, then the JSON body. The CRC
// refuses a token damaged in transit or edited; it is not a secret: the
// token is a capability, like the lock's owner id it names, and anyone who
// can write the lock table can already break any lock in it.
const shareTokenPrefix = "qs1."

// shareToken is a token's body: the lock's handle and one entry per id.
type shareToken struct {
	Table string `json:"table"`
	Scope string `json:"scope"` // lockstep.Scope.String() of the giver's store
	Sep   string `json:"sep"`   // the giver's hierarchy separator
	ID    string `json:"id"`    // the handle's ID: what the caller asked for
	// Plan is the handle's members in canonical order (a group's), or
	// empty for a lock of one flat id.
	Plan    []lockstep.Request `json:"plan,omitempty"`
	Members []shareMember      `json:"members"`
}

// shareMember is one id of the lock: the cells its lease renews and the
// identity the receiver continues.
type shareMember struct {
	Name   string          `json:"name"`  // the lock id
	Row    string          `json:"row"`   // its partition (lockstep.Scope.Row)
	Owner  string          `json:"owner"` // the acquisition's owner id
	Access lockstep.Access `json:"access"`
	Queue  string          `json:"queue"`           // the queue cell's column
	Token  int64           `json:"token,omitempty"` // the fencing token, 0 without
}

func encodeShareToken(t shareToken) (string, error) {
	body, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("queuelock: share: encoding the token: %w", err)
	}
	b := binary.BigEndian.AppendUint32(nil, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	return shareTokenPrefix + base64.RawURLEncoding.EncodeToString(append(b, body...)), nil
}

func decodeShareToken(s string) (shareToken, error) {
	var t shareToken
	bad := func(why string) error {
		return fmt.Errorf("%w: %s: pass the string the giver's Share returned, unchanged", lockstep.ErrShareToken, why)
	}
	rest, ok := strings.CutPrefix(s, shareTokenPrefix)
	if !ok {
		return t, bad("it does not start with " + shareTokenPrefix + " (not a queue lock's token, or another version's)")
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(raw) < 4 {
		return t, bad("it is not base64url")
	}
	body := raw[4:]
	if binary.BigEndian.Uint32(raw) != crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) {
		return t, bad("its checksum does not match (damaged or edited)")
	}
	if err := json.Unmarshal(body, &t); err != nil {
		return t, bad("its body does not parse")
	}
	if len(t.Members) == 0 {
		return t, bad("it names no lock")
	}
	for _, m := range t.Members {
		if m.Name == "" || m.Row == "" || m.Owner == "" || m.Queue == "" || !m.Access.Valid() {
			return t, bad("a member is incomplete")
		}
	}
	return t, nil
}
