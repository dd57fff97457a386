package dsn

import "fmt"

// PoolKeysError refuses the pool limits that only a *sql.DB can apply (max_open_conns,
// max_idle_conns), naming the way to set them; nil when c has none. sql.Open cannot apply them:
// chnative.OpenDSN and chnative.OpenDB do. (conn_max_lifetime is enforced by the driver too.)
func (c *Config) PoolKeysError() error {
	for _, k := range []struct {
		key, setter string
		n           int
	}{
		{KeyMaxOpenConns, "SetMaxOpenConns", c.MaxOpenConns},
		{KeyMaxIdleConns, "SetMaxIdleConns", c.MaxIdleConns},
	} {
		if k.n != 0 {
			return &Error{Key: k.key, Value: fmt.Sprint(k.n), Err: fmt.Errorf(
				"is a database/sql pool limit, which a driver cannot apply through sql.Open: open with chnative.OpenDSN(dsn) or chnative.OpenDB(cfg), which apply it, or drop the key and call db.%s(%d)",
				k.setter, k.n)}
		}
	}
	return nil
}
