package wakeup

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var key = bytes.Repeat([]byte{7}, MinKeyBytes)

func TestSeal_OpenRoundTrips(t *testing.T) {
	m := Message{Table: "queue_lock", ID: "invoice/42", From: "a", To: "b", Sender: "p1", Sent: 1234, Nonce: 99}
	b, err := Seal(key, m)
	require.NoError(t, err)
	got, err := Open(key, b)
	require.NoError(t, err)
	require.Equal(t, m, got)
}

func TestOpen_RefusesForgedAndDamagedDatagrams(t *testing.T) {
	m := Message{Table: "t", ID: "x", To: "b", Sender: "p"}
	other := bytes.Repeat([]byte{8}, MinKeyBytes)
	forged, err := Seal(other, m)
	require.NoError(t, err)
	_, err = Open(key, forged)
	require.ErrorIs(t, err, ErrForged)

	b, err := Seal(key, m)
	require.NoError(t, err)
	for i := range b {
		d := bytes.Clone(b)
		d[i] ^= 1
		_, err := Open(key, d)
		require.ErrorIs(t, err, ErrForged, "byte %d flipped", i)
	}
	_, err = Open(key, b[:10])
	require.ErrorIs(t, err, ErrForged)
}

func TestSeal_RefusesShortKey(t *testing.T) {
	_, err := Seal([]byte("short"), Message{})
	require.ErrorIs(t, err, ErrBadKey)
	_, err = Open([]byte("short"), nil)
	require.ErrorIs(t, err, ErrBadKey)
}

func TestUDP_DeliversADatagram(t *testing.T) {
	a, err := ListenUDP("127.0.0.1:0", "")
	require.NoError(t, err)
	defer a.Close()
	b, err := ListenUDP("127.0.0.1:0", "")
	require.NoError(t, err)
	defer b.Close()
	got := make(chan []byte, 1)
	b.Handle(func(d []byte) { got <- d })
	require.NoError(t, a.Send(b.Addr(), []byte("wake")))
	select {
	case d := <-got:
		require.Equal(t, []byte("wake"), d)
	case <-time.After(5 * time.Second):
		t.Fatal("no datagram within 5s on loopback")
	}
}

func TestListenUDP_BadAddressSaysWhatToGive(t *testing.T) {
	_, err := ListenUDP("nonsense", "")
	require.ErrorContains(t, err, "host:port")
}
