package dsn_test

import (
	"fmt"
	"time"

	"github.com/chnative/chnative/dsn"
)

func ExampleParse() {
	c, err := dsn.Parse("clickhouse://alice:s%40cret@ch1:9000,ch2/analytics?dial_timeout=5s&compress=lz4&max_execution_time=60")
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Addrs)
	fmt.Println(c.User, c.Password, c.Database)
	fmt.Println(c.DialTimeout, c.Compress)
	fmt.Println(c.Settings)
	fmt.Println(c) // String redacts the password
	// Output:
	// [ch1:9000 ch2:9000]
	// alice s@cret analytics
	// 5s lz4
	// map[max_execution_time:60]
	// clickhouse://alice:xxxxx@ch1:9000,ch2:9000/analytics?compress=lz4&dial_timeout=5s&max_execution_time=60
}

func ExampleParse_error() {
	_, err := dsn.Parse("clickhouse://alice:s%40cret@ch1/db?read_timeout=soon")
	fmt.Println(err)
	// Output:
	// dsn: invalid read_timeout "soon": want a Go duration such as 5s or 1m30s, or a whole number of seconds
}

func ExampleConfig_FormatDSN() {
	c := dsn.NewConfig()
	c.Addrs = []string{"[::1]:9440"}
	c.User = "bob"
	c.Password = "p/ss?word"
	c.Database = "logs"
	c.Secure = true
	c.ReadTimeout = time.Minute
	c.Settings = map[string]string{"readonly": "1"}
	fmt.Println(c.FormatDSN())
	// Output:
	// clickhouse://bob:p%2Fss%3Fword@[::1]:9440/logs?read_timeout=1m0s&readonly=1&secure=true
}
