package chconn

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// Waking up idle services (dsn.Config.WakeUpTimeout, key wake_up_timeout).
//
// Design note: an idle ClickHouse Cloud service is suspended; the first connection wakes it,
// and until it runs the proxy in front of it accepts TCP but answers the Hello late, or the
// dial times out. Without a budget that first connection fails with the dial timeout. With
// one, a round of dials over the hosts whose every failure was a timeout (not a refusal, not
// the server's exception, not the caller's context) is tried again after a pause (wakeFirst,
// doubling up to wakeMax) while the budget, counted from the first dial, lasts. Each dial
// keeps its own dial_timeout.

const (
	wakeFirst = 250 * time.Millisecond
	wakeMax   = 4 * time.Second
)

// timedOut reports whether err is a dial or handshake that ran out of time (the dial timeout,
// a read deadline), as opposed to a refusal or an answer.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// wakeWait returns how long to pause before the next round of dials after round rounds that
// began at start, or false when the budget is spent (or off).
func wakeWait(budget time.Duration, start time.Time, round int) (time.Duration, bool) {
	if budget <= 0 {
		return 0, false
	}
	wait := wakeFirst << min(round, 8)
	wait = min(wait, wakeMax)
	left := budget - time.Since(start)
	if left <= 0 {
		return 0, false
	}
	return min(wait, left), true
}

// sleepCtx pauses for d or until ctx ends (false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// authCache keeps what a host set loads from files once for all its connections: the SSH key
// (decrypting it may take a while) and the client certificate.
type authCache struct {
	mu     sync.Mutex
	signer ssh.Signer
	cert   *tls.Certificate
}

// fill sets d's signer and certificate from the cache, loading them on first use; an error
// is not cached (the file may be fixed).
func (a *authCache) fill(h *Hosts, d *Dialer) error {
	cfg := h.Config
	if (d.SSHSigner != nil || cfg.SSHKey == "") && (!cfg.Secure || cfg.TLSCert == "") {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if d.SSHSigner == nil && cfg.SSHKey != "" {
		if a.signer == nil {
			s, err := LoadSSHKey(cfg.SSHKey, cfg.SSHKeyPassphrase)
			if err != nil {
				return err
			}
			a.signer = s
		}
		d.SSHSigner = a.signer
	}
	if cfg.Secure && cfg.TLSCert != "" {
		if a.cert == nil {
			c, err := loadClientCert(cfg)
			if err != nil {
				return err
			}
			a.cert = c
		}
		d.cert = a.cert
	}
	return nil
}
