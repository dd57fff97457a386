package chgo

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// canon renders a scanned value as text that is equal for two values exactly when they have
// the same Go types and the same contents: pointers are followed (a nil pointer names its type),
// times are their instant and zone name (Etc/UTC and UTC are the same zone), floats their
// shortest text (NaN equals NaN), IPs their bytes, maps their entries sorted.
func canon(v reflect.Value) string {
	var b strings.Builder
	writeCanon(&b, v, true)
	return b.String()
}

func writeCanon(b *strings.Builder, v reflect.Value, typed bool) {
	if !v.IsValid() {
		b.WriteString("nil")
		return
	}
	t := v.Type()
	if typed {
		b.WriteString(t.String())
		b.WriteByte(':')
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		writeCanon(b, v.Elem(), true)
		return
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteByte('&')
		writeCanon(b, v.Elem(), false)
		return
	}
	if v.CanInterface() {
		switch x := v.Interface().(type) {
		case time.Time:
			zone := x.Location().String()
			if zone == "Etc/UTC" {
				zone = "UTC"
			}
			b.WriteString(x.UTC().Format(time.RFC3339Nano) + "@" + zone)
			return
		case big.Int:
			b.WriteString(x.String())
			return
		case net.IP:
			b.WriteString(hex.EncodeToString(x))
			return
		case netip.Addr:
			b.WriteString(x.String())
			return
		case decimal.Decimal:
			b.WriteString(x.String())
			return
		case uuid.UUID:
			b.WriteString(x.String())
			return
		case json.RawMessage:
			b.WriteString(strconv.Quote(string(x)))
			return
		}
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, t.Bits()))
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("nil")
			return
		}
		if t.Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
			b.WriteString(strconv.Quote(string(v.Bytes())))
			return
		}
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeCanon(b, v.Index(i), false)
		}
		b.WriteByte(']')
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		var kv []string
		for it := v.MapRange(); it.Next(); {
			kv = append(kv, canonNoType(it.Key())+"="+canonNoType(it.Value()))
		}
		sort.Strings(kv)
		b.WriteString("{" + strings.Join(kv, " ") + "}")
	case reflect.Struct:
		b.WriteByte('{')
		for i := range v.NumField() {
			if !t.Field(i).IsExported() {
				fmt.Fprintf(b, "%v", v.Interface()) // opaque: its own formatting
				break
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t.Field(i).Name + ":")
			writeCanon(b, v.Field(i), false)
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "%v", v.Interface())
	}
}

func canonNoType(v reflect.Value) string {
	var b strings.Builder
	writeCanon(&b, v, false)
	return b.String()
}

func TestCanon(t *testing.T) {
	s1, s2 := "x", "x"
	utc, _ := time.LoadLocation("Etc/UTC")
	for _, tc := range []struct {
		a, b any
		same bool
	}{
		{&s1, &s2, true},
		{(*string)(nil), (*int)(nil), false},
		{[]int32{}, []int32(nil), false},
		{[]int32{}, []int64{}, false},
		{time.Unix(0, 0).UTC(), time.Unix(0, 0).In(utc), true},
		{time.Unix(0, 0).UTC(), time.Unix(1, 0).UTC(), false},
		{net.IP{1, 2, 3, 4}, net.IPv4(1, 2, 3, 4), false},
		{[]any{uint8(1)}, []any{int8(1)}, false},
		{map[string]any{"a": 1, "b": "x"}, map[string]any{"b": "x", "a": 1}, true},
		{[]float64{0, 1}, []float64{0, 1}, true},
		{*big.NewInt(5), *big.NewInt(5), true},
		{*big.NewInt(5), big.NewInt(5), false},
	} {
		if got := canon(reflect.ValueOf(&tc.a).Elem()) == canon(reflect.ValueOf(&tc.b).Elem()); got != tc.same {
			t.Errorf("canon(%#v) == canon(%#v): %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

var seqN atomic.Int64

// seq returns a number unique in this run (table names).
func seq() int64 { return time.Now().UnixNano()%1_000_000_000 + seqN.Add(1) }
