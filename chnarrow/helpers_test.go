package chnarrow

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/conformance/types"

	_ "github.com/chnative/chnative"
)

// modernEnv returns the 26.7 test server's variable env: a test without it skips, and fails
// when CI is set (CI must run every test; see CONTRIBUTING.md).
func modernEnv(t testing.TB, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		msg := env + " not set: run eval \"$(scripts/modern.sh env)\" after scripts/modern.sh start"
		if ci := os.Getenv("CI"); ci == "true" || ci == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return v
}

// modern opens the 26.7 test server with the type suite's settings (experimental types on,
// session_timezone UTC) and returns it with its HTTP URL carrying the same settings.
func modern(t testing.TB) (*sql.DB, string) {
	t.Helper()
	dsn, err := types.ModernDSN(modernEnv(t, "CHNATIVE_MODERN_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("chnative", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	u, err := url.Parse(modernEnv(t, "CHNATIVE_MODERN_HTTP_URL"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for _, kv := range types.ModernSettings {
		q.Set(kv[0], kv[1])
	}
	u.RawQuery = q.Encode()
	return db, u.String()
}

// httpQuery runs query over HTTP and returns the body, failing the test on a non-200 answer.
func httpQuery(t testing.TB, base, query string) io.ReadCloser {
	t.Helper()
	body, err := httpPost(base, query)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// httpPost runs query over HTTP and returns the body, or the server's error.
func httpPost(base, query string) (io.ReadCloser, error) {
	resp, err := http.Post(base, "text/plain", strings.NewReader(query))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %s: %s", query, bytes.TrimSpace(b))
	}
	return resp.Body, nil
}

// httpText is the server's TabSeparated answer to query.
func httpText(t testing.TB, base, query string) string {
	t.Helper()
	body := httpQuery(t, base, query+" FORMAT TabSeparated")
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// httpExec runs a statement over HTTP.
func httpExec(t testing.TB, base, stmt string) {
	t.Helper()
	httpQuery(t, base, stmt).Close()
}

// serverArrow reads the server's own FORMAT ArrowStream answer to query with arrow-go's IPC
// reader and returns each row's canonical text of column col. An exception the server raised
// while writing the stream (after its 200 header) is returned as the error.
func serverArrow(t testing.TB, base, query, col string) ([]string, error) {
	t.Helper()
	body, err := httpPost(base, query+" FORMAT ArrowStream")
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		return nil, err
	}
	if i := bytes.Index(data, []byte("DB::Exception")); i >= 0 {
		return nil, fmt.Errorf("the server's ArrowStream ended in an exception: %s", bytes.TrimSpace(data[max(0, bytes.LastIndex(data[:i], []byte("Code: "))):]))
	}
	r, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var out []string
	for r.Next() {
		out = append(out, canonColumn(t, r.RecordBatch(), col)...)
	}
	return out, r.Err()
}

// canonColumn is each row's canonical text of rec's column col.
func canonColumn(t testing.TB, rec arrow.RecordBatch, col string) []string {
	t.Helper()
	idx := rec.Schema().FieldIndices(col)
	if len(idx) != 1 {
		t.Fatalf("no column %s in %s", col, rec.Schema())
	}
	arr := rec.Column(idx[0])
	out := make([]string, arr.Len())
	for i := range out {
		out[i] = canon(arr, i)
	}
	return out
}

// canon is a canonical text of row i of arr, the same for the Arrow forms chnarrow and the
// server's FORMAT ArrowStream give one ClickHouse value where they differ on purpose (a
// timestamp and a UInt32 of seconds, a dictionary and its values, a duration and a time, a
// float32 and BFloat16's two bytes): each is its number or its decoded value.
func canon(arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return "NULL"
	}
	switch a := arr.(type) {
	case *array.Dictionary:
		return canon(a.Dictionary(), a.GetValueIndex(i))
	case array.ExtensionArray:
		return canon(a.Storage(), i)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.String:
		return strconv.Quote(a.Value(i))
	case *array.Binary:
		if b := a.Value(i); len(b) == 2 { // the server's BFloat16
			return strconv.FormatFloat(float64(columns.BFloat16Float32(uint16(b[0])|uint16(b[1])<<8)), 'g', -1, 32)
		}
		return strconv.Quote(string(a.Value(i)))
	case *array.FixedSizeBinary:
		return hex.EncodeToString(a.Value(i))
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal256:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal256Type).Scale)
	case *array.Map:
		lo, hi := a.ValueOffsets(i)
		var parts []string
		for j := lo; j < hi; j++ {
			parts = append(parts, canon(a.Keys(), int(j))+":"+canon(a.Items(), int(j)))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case array.ListLike:
		lo, hi := a.ValueOffsets(i)
		var parts []string
		for j := lo; j < hi; j++ {
			parts = append(parts, canon(a.ListValues(), int(j)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *array.DenseUnion:
		return canon(a.Field(a.ChildID(i)), int(a.ValueOffset(i)))
	case *array.Struct:
		var parts []string
		for f := range a.NumField() {
			parts = append(parts, canon(a.Field(f), i))
		}
		return "(" + strings.Join(parts, ",") + ")"
	}
	// Integers, dates, times, timestamps, durations: the number.
	s := arr.ValueStr(i)
	switch a := arr.(type) {
	case *array.Timestamp:
		s = strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Date32:
		s = strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Time32:
		s = strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Time64:
		s = strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Duration:
		s = strconv.FormatInt(int64(a.Value(i)), 10)
	}
	return s
}

// collect reads every record of r, retained, and releases r.
func collect(t testing.TB, r array.RecordReader) []arrow.RecordBatch {
	t.Helper()
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func releaseRecs(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
