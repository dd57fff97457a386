package chconn

import (
	"context"
	"errors"
	"fmt"

	"github.com/chnative/chnative/dsn"
)

// jwtUser is the user name of a Hello that authenticates with a JSON Web Token, the token
// taking the password's place (EncodedUserInfo::JWT_AUTHENTICATION_MARKER in ClickHouse's
// Core/Protocol.h; clickhouse-go sends the same). The server checks the token instead of a
// user and password, with no revision condition: ClickHouse Cloud does, builds without its
// JWT support take the marker for an unknown user.
const jwtUser = " JWT AUTHENTICATION "

// AuthError is a connection that could not authenticate before anything was sent: a token
// callback that failed, a key file that cannot be read, a revision too old for the method.
type AuthError struct {
	Method string // "jwt", "ssh_key" or "tls_cert"
	Err    error
}

func (e *AuthError) Error() string {
	return "chnative: " + e.Method + " authentication: " + e.Err.Error()
}

func (e *AuthError) Unwrap() error { return e.Err }

// credentials returns the user and password of the Hello: a token (cfg.GetJWT's, called for
// each new connection so that it may be refreshed, else cfg.JWT) in the password's place, or
// the configured user and password.
func credentials(ctx context.Context, cfg *dsn.Config) (user, password string, err error) {
	token := cfg.JWT
	if cfg.GetJWT != nil {
		if token, err = cfg.GetJWT(ctx); err != nil {
			return "", "", &AuthError{Method: "jwt", Err: fmt.Errorf("GetJWT: %w", err)}
		}
	}
	if token == "" {
		if cfg.GetJWT != nil {
			return "", "", &AuthError{Method: "jwt", Err: errEmptyToken}
		}
		return cfg.User, cfg.Password, nil
	}
	return jwtUser, token, nil
}

var errEmptyToken = errors.New("GetJWT returned an empty token")
