package types

import (
	"fmt"
	"os"
	"testing"

	"github.com/chnative/chnative/conformance/chdb"
)

func TestProbe(t *testing.T) {
	e := chdb.ForTest(t)
	b, _ := os.ReadFile("/tmp/probe.sql")
	out, err := e.Query(string(b), "TabSeparated")
	fmt.Printf("%q\n%v\n", out, err)
}
