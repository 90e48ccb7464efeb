package wakeup

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// MinKeyBytes is the shortest key Seal and Open accept: HMAC-SHA256's
// output size, the key length RFC 2104 recommends at least.
const MinKeyBytes = sha256.Size

// MaxDatagram bounds a sealed message, so that it fits one UDP datagram on
// any path (IPv6's minimum MTU less headers).
const MaxDatagram = 1200

const version = 1

// Message is one wake-up: the releaser of lock ID in Table tells the waiter
// whose queue cell is To that it released. From is the releaser's queue
// cell, Sender its process id (what the receiver rate-limits by), Sent the
// releaser's wall clock in µs and Nonce a random number, so that two
// wake-ups never seal to the same bytes.
type Message struct {
	Table, ID string
	From, To  string
	Sender    string
	Sent      int64
	Nonce     uint64
}

// ErrBadKey is returned for a key shorter than MinKeyBytes.
var ErrBadKey = fmt.Errorf("wakeup: key must be at least %d bytes (draw it from crypto/rand and give every process of the fleet the same one)", MinKeyBytes)

// ErrForged is returned by Open for a datagram that does not carry a valid
// MAC under the key: not sealed by a holder of the key, or damaged.
var ErrForged = errors.New("wakeup: datagram not authenticated by the fleet's key")

// Seal encodes m and appends its HMAC-SHA256 under key.
func Seal(key []byte, m Message) ([]byte, error) {
	if len(key) < MinKeyBytes {
		return nil, ErrBadKey
	}
	b := []byte{version}
	for _, s := range []string{m.Table, m.ID, m.From, m.To, m.Sender} {
		if len(s) > 0xffff {
			return nil, fmt.Errorf("wakeup: field of %d bytes is too long", len(s))
		}
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(m.Sent))
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	b = mac.Sum(b)
	if len(b) > MaxDatagram {
		return nil, fmt.Errorf("wakeup: message of %d bytes exceeds %d (lock id or table name too long)", len(b), MaxDatagram)
	}
	return b, nil
}

// Open checks b's MAC under key and decodes it. It returns ErrForged for a
// datagram whose MAC does not verify, before looking at anything else in it.
func Open(key, b []byte) (Message, error) {
	if len(key) < MinKeyBytes {
		return Message{}, ErrBadKey
	}
	if len(b) < 1+sha256.Size {
		return Message{}, ErrForged
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	if !hmac.Equal(mac.Sum(nil), sum) {
		return Message{}, ErrForged
	}
	if body[0] != version {
		return Message{}, fmt.Errorf("wakeup: message version %d, want %d", body[0], version)
	}
	body = body[1:]
	var fields [5]string
	for i := range fields {
		if len(body) < 2 || len(body) < 2+int(binary.BigEndian.Uint16(body)) {
			return Message{}, errors.New("wakeup: truncated message")
		}
		n := int(binary.BigEndian.Uint16(body))
		fields[i], body = string(body[2:2+n]), body[2+n:]
	}
	if len(body) != 16 {
		return Message{}, errors.New("wakeup: malformed message")
	}
	return Message{Table: fields[0], ID: fields[1], From: fields[2], To: fields[3], Sender: fields[4],
		Sent: int64(binary.BigEndian.Uint64(body)), Nonce: binary.BigEndian.Uint64(body[8:])}, nil
}
