package chconn

import (
	"context"
	"errors"
	"testing"

	"github.com/chnative/chnative/columns"
)

// A lie that arrives as the caller's context ends is returned as the lie and closes the
// connection; only a transport failure (the watcher's deadline cutting a read) takes the
// cancel-and-drain path.
func TestFailLieAfterContextEnded(t *testing.T) {
	c := dialFake(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lie := &columns.DecodeError{Type: "String", Msg: "length 1099511627776 exceeds the limit"}
	err := c.fail(ctx, true, lie)
	if !errors.Is(err, lie) && !errors.As(err, new(*columns.DecodeError)) {
		t.Fatalf("fail returned %v, want the decode error", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatalf("fail returned the context's error for a lie: %v", err)
	}
	if !c.Bad() {
		t.Fatal("the connection that met a lie is not marked bad")
	}
	if IsTransport(err) {
		t.Fatalf("a lie is classified as a transport failure: %v", err)
	}
}
