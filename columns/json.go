package columns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JSON serialization versions (SerializationObject).
const (
	jsonV1        = 0
	jsonString    = 1
	jsonV2        = 2
	jsonFlattened = 3

	maxJSONPaths = 1 << 20
)

// MaxJSONPathDepth caps the parts of one JSON path (a.b.c has 3), checked before the path is
// split: a path's parts become nested objects, which the JSON text is written from recursively,
// so a server's path of 10^6 parts would overflow the stack. The server's own
// input_format_json_max_depth is 1000 too.
const MaxJSONPathDepth = 1000

// JSON is a column of the JSON type (JSON, JSON(a.b UInt32, max_dynamic_paths=N, SKIP x, ...)).
// It holds every value as JSON text: Value returns a string.
//
// Decoding reads the STRING serialization (version 1: one JSON text per row, which the server
// sends with output_format_native_write_json_as_string=1) and the object serializations V1
// (version 0), V2 (version 2) and FLATTENED (version 3): typed paths, dynamic paths and shared
// data are decoded and re-assembled into JSON text (keys sorted, 64-bit integers unquoted, dates
// and times as "2006-01-02 15:04:05[.fffffffff]" strings, NaN and infinities as strings). The text
// re-assembled from the object serializations is equivalent to, not always byte-identical with,
// the server's own JSON output. Encoding writes the STRING serialization, which the server
// accepts on INSERT.
type JSON struct {
	typ   string
	text  *String
	typed []jsonPath // typed paths from the type, sorted by path

	// Block state of the object serializations.
	version uint64
	dyn     []jsonPath // dynamic paths (Dynamic columns)
	shared  *Array     // Array(Tuple(String, String)): path, binary-encoded value
}

type jsonPath struct {
	path string
	col  Column
}

func newJSONFromNode(n *TypeNode) (Column, error) {
	c := &JSON{typ: n.String(), text: NewString(), version: jsonString}
	for _, a := range n.Args {
		switch a.Kind {
		case ArgType:
			if a.Field == "" {
				return nil, unsupported(n, "a typed path needs a name")
			}
			col, err := FromNode(a.Type)
			if err != nil {
				return nil, err
			}
			for _, p := range c.typed {
				if p.path == a.Field {
					return nil, unsupported(n, "path %s appears twice", a.Field)
				}
			}
			c.typed = append(c.typed, jsonPath{a.Field, col})
		case ArgRaw:
			// max_dynamic_paths=N, max_dynamic_types=N, SKIP path, SKIP REGEXP 're'
		default:
			return nil, unsupported(n, "unexpected argument")
		}
	}
	sort.Slice(c.typed, func(i, j int) bool { return c.typed[i].path < c.typed[j].path })
	return c, nil
}

// Type returns the type name, e.g. "JSON" or "JSON(a.b UInt32)".
func (c *JSON) Type() string { return c.typ }

// Rows returns the number of values.
func (c *JSON) Rows() int { return c.text.Rows() }

// Value returns row i as JSON text (a string).
func (c *JSON) Value(i int) any { return c.text.String(i) }

// Text returns row i as JSON text, borrowed.
func (c *JSON) Text(i int) []byte { return c.text.Bytes(i) }

// ScanType returns string.
func (c *JSON) ScanType() reflect.Type { return reflect.TypeFor[string]() }

// sqlType: database/sql gets JSON text as a []byte at the top level of a result (clickhouse-go's
// form), which it stores into *json.RawMessage, *[]byte and *string alike (a string would not
// reach a json.RawMessage before Go 1.27); as an element it stays Value's string.
func (c *JSON) sqlType(top bool) reflect.Type {
	if top {
		return reflect.TypeFor[[]byte]()
	}
	return nil
}

func (c *JSON) sqlValue(i int, _ bool) any { return append([]byte{}, c.text.Bytes(i)...) }

// sqlScanType is string, as clickhouse-go names it (and hands a []byte too).
func (c *JSON) sqlScanType() reflect.Type { return reflect.TypeFor[string]() }

// scanValue stores row i's text into a *json.RawMessage (a copy) and decodes it with
// encoding/json into a json.Unmarshaler or a pointer to a struct, a map or a slice (other than
// []byte). database/sql gets a JSON value as its text, a []byte, which it stores only into
// strings and byte slices (and json.RawMessage); ScanValue's caller reaches the others on Go 1.27.
func (c *JSON) scanValue(i int, dest any) (bool, error) {
	text := c.text.Bytes(i)
	switch d := dest.(type) {
	case *json.RawMessage:
		*d = append(json.RawMessage{}, text...)
		return true, nil
	case json.Unmarshaler:
		return true, d.UnmarshalJSON(text)
	}
	e := reflect.TypeOf(dest).Elem()
	switch {
	case e.Kind() == reflect.Struct, e.Kind() == reflect.Map,
		e.Kind() == reflect.Slice && e.Elem().Kind() != reflect.Uint8:
		if err := json.Unmarshal(text, dest); err != nil {
			return true, fmt.Errorf("columns: decoding %s into %s: %w", c.typ, e, err)
		}
		return true, nil
	}
	return false, nil
}

// AppendValue appends JSON text (string, []byte, json.RawMessage), which must be a JSON object,
// or any other Go value that encoding/json marshals to an object (maps, structs).
func (c *JSON) AppendValue(v any) error {
	var text []byte
	switch x := v.(type) {
	case string:
		text = []byte(x)
	case []byte:
		text = x
	case json.RawMessage:
		text = x
	default:
		y, isNil, err := deref(v)
		if err != nil {
			return err
		}
		if isNil {
			return mismatch(c, v, "NULL in a non-Nullable column")
		}
		switch z := y.(type) {
		case string:
			text = []byte(z)
		case []byte:
			text = z
		default:
			if text, err = json.Marshal(y); err != nil {
				return mismatch(c, v, err.Error())
			}
		}
	}
	t := bytes.TrimSpace(text)
	if !json.Valid(t) || len(t) == 0 || t[0] != '{' {
		return mismatch(c, v, "not a JSON object")
	}
	c.text.AppendBytes(t)
	return nil
}

// AppendDefault appends {}.
func (c *JSON) AppendDefault() { c.text.Append("{}") }

// Truncate keeps the first n values.
func (c *JSON) Truncate(n int) { c.text.Truncate(n) }

// Reset removes all values.
func (c *JSON) Reset() { c.text.Reset() }

// WritePrefix writes the STRING serialization version.
func (c *JSON) WritePrefix(w *Writer) { w.Uint64(jsonString) }

// Write appends the JSON texts as a String column.
func (c *JSON) Write(w *Writer) { c.text.Write(w) }

// writePieces is Write in pieces of about n bytes, flush called after each (WritePieces).
func (c *JSON) writePieces(w *Writer, n int, flush func()) { WritePieces(c.text, w, n, flush) }

// ReadPrefix reads the serialization version and, for the object serializations, the structure
// and the nested prefixes.
func (c *JSON) ReadPrefix(r *Reader) error {
	if err := c.readPrefix(r); err != nil {
		c.version, c.dyn = jsonString, nil
		c.Reset()
		return err
	}
	return nil
}

func (c *JSON) readPrefix(r *Reader) error {
	c.dyn = c.dyn[:0]
	ver, err := r.Uint64()
	if err != nil {
		return decodeErr(c, "serialization version: %v", unexpected(err))
	}
	c.version = ver
	switch ver {
	case jsonString:
		return nil
	case jsonV1, jsonV2, jsonFlattened:
	default:
		return decodeErr(c, "serialization version %d is not supported (0 V1, 1 STRING, 2 V2, 3 FLATTENED; set output_format_native_write_json_as_string=1)", ver)
	}
	if ver == jsonV1 {
		if _, err := r.UVarInt(); err != nil {
			return decodeErr(c, "max_dynamic_paths: %v", unexpected(err))
		}
	}
	n, err := r.Count("JSON paths", maxJSONPaths)
	if err != nil {
		return decodeErr(c, "number of paths: %v", err)
	}
	for range n {
		p, err := r.String("JSON path", MaxStringSize)
		if err != nil {
			return decodeErr(c, "path: %v", unexpected(err))
		}
		c.dyn = append(c.dyn, jsonPath{p, NewDynamic(-1)})
	}
	for _, p := range c.typed {
		if err := p.col.ReadPrefix(r); err != nil {
			return err
		}
	}
	for _, p := range c.dyn {
		if err := p.col.ReadPrefix(r); err != nil {
			return err
		}
	}
	if ver != jsonFlattened && c.shared == nil {
		c.shared = NewArray(NewTuple([]Column{NewString(), NewString()}, nil))
	}
	return nil
}

// Read replaces the values with rows values from r.
func (c *JSON) Read(r *Reader, rows int) error {
	if err := c.read(r, rows); err != nil {
		c.Reset()
		return err
	}
	return nil
}

func (c *JSON) read(r *Reader, rows int) error {
	if c.version == jsonString || rows == 0 {
		return c.text.Read(r, rows)
	}
	c.text.Reset()
	if err := checkRows(c, rows); err != nil {
		return err
	}
	for _, p := range c.typed {
		if err := p.col.Read(r, rows); err != nil {
			return err
		}
	}
	for _, p := range c.dyn {
		if err := p.col.Read(r, rows); err != nil {
			return err
		}
	}
	if c.version != jsonFlattened {
		if err := c.shared.Read(r, rows); err != nil {
			return err
		}
	}
	for i := range rows {
		obj := map[string]any{}
		for _, p := range c.typed {
			if err := setPath(obj, p.path, jsonTyped(p.col.Type(), p.col.Value(i))); err != nil {
				return decodeErr(c, "row %d: %v", i, err)
			}
		}
		for _, p := range c.dyn {
			if v := p.col.Value(i); v != nil {
				if err := setPath(obj, p.path, v); err != nil {
					return decodeErr(c, "row %d: %v", i, err)
				}
			}
		}
		if c.version != jsonFlattened {
			lo, hi := c.shared.Bounds(i)
			t := c.shared.elem.(*Tuple)
			paths, vals := t.elems[0].(*String), t.elems[1].(*String)
			for j := lo; j < hi; j++ {
				typ, v, err := decodeBinaryValue(vals.Bytes(j))
				if err != nil {
					return decodeErr(c, "row %d: shared data path %q: %v", i, paths.String(j), err)
				}
				if typ != "Nothing" {
					if err := setPath(obj, paths.String(j), jsonTyped(typ, v)); err != nil {
						return decodeErr(c, "row %d: %v", i, err)
					}
				}
			}
		}
		if err := c.appendObject(obj); err != nil {
			return decodeErr(c, "row %d: %v", i, err)
		}
	}
	return nil
}

// appendObject appends obj as JSON text.
func (c *JSON) appendObject(obj map[string]any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jsonable(obj)); err != nil {
		return err
	}
	c.text.AppendBytes(bytes.TrimRight(buf.Bytes(), "\n"))
	return nil
}

// readBinary reads one value in the binary (RowBinary) format: the number of paths, then per
// path its name and its value (typed paths in their type's binary format, others as a
// binary-encoded type and value).
func (c *JSON) readBinary(r *Reader, depth int) error {
	n, err := r.Count("JSON paths", maxJSONPaths)
	if err != nil {
		return unexpected(err)
	}
	obj := map[string]any{}
	for range n {
		path, err := r.String("JSON path", MaxStringSize)
		if err != nil {
			return unexpected(err)
		}
		var v any
		typed := false
		for _, p := range c.typed {
			if p.path == path {
				col, err := New(p.col.Type())
				if err != nil {
					return err
				}
				if err := readBinaryValue(r, col, depth+1); err != nil {
					return err
				}
				v, typed = jsonTyped(col.Type(), col.Value(0)), true
				break
			}
		}
		if !typed {
			var typ string
			if typ, v, err = readDynamicBinary(r, depth+1); err != nil {
				return err
			}
			v = jsonTyped(typ, v)
			if v == nil {
				continue
			}
		}
		if err := setPath(obj, path, v); err != nil {
			return err
		}
	}
	return c.appendObject(obj)
}

// setPath stores v at the dotted path in obj, making nested objects (a path that collides with a
// value of another path is stored flat). A path of more than MaxJSONPathDepth parts is a
// *LimitError, before anything is stored.
func setPath(obj map[string]any, path string, v any) error {
	if n := strings.Count(path, ".") + 1; n > MaxJSONPathDepth {
		return &LimitError{What: "JSON path parts", Value: uint64(n), Max: MaxJSONPathDepth}
	}
	parts := strings.Split(path, ".")
	m := obj
	for k, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			if _, taken := m[p]; taken {
				m[strings.Join(parts[k:], ".")] = v
				return nil
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	last := parts[len(parts)-1]
	if _, isObj := m[last].(map[string]any); isObj {
		return nil
	}
	m[last] = v
	return nil
}

// jsonable converts a decoded value to what encoding/json writes as the server writes JSON.
func jsonable(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case json.RawMessage:
		return x
	case DynamicValue:
		return jsonable(jsonTyped(x.Type, x.Value))
	case VariantValue:
		return jsonable(jsonTyped(x.Type, x.Value))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return x
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return strconv.FormatFloat(float64(x), 'g', -1, 32)
		}
		return x
	case time.Time:
		if x.Nanosecond() != 0 {
			return x.Format("2006-01-02 15:04:05.999999999")
		}
		return x.Format(time.DateTime)
	case *big.Int:
		if x == nil {
			return nil
		}
		return json.Number(x.String())
	case Decimal:
		return json.Number(x.String())
	case string, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return x
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return jsonable(rv.Elem().Interface())
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = jsonable(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		out := make(map[string]any, rv.Len())
		keys := rv.MapKeys()
		for _, k := range keys {
			out[fmt.Sprint(jsonable(k.Interface()))] = jsonable(rv.MapIndex(k).Interface())
		}
		return out
	}
	return v
}

// jsonTyped marks the JSON texts inside v, a value of type typ, as raw JSON so that they nest as
// objects rather than as strings.
func jsonTyped(typ string, v any) any {
	if v == nil || !strings.Contains(typ, "JSON") {
		return v
	}
	n, err := ParseType(typ)
	if err != nil {
		return v
	}
	return jsonTypedNode(n, v)
}

func jsonTypedNode(n *TypeNode, v any) any {
	if v == nil {
		return nil
	}
	switch n.Name {
	case "JSON":
		if s, ok := v.(string); ok {
			return json.RawMessage(s)
		}
	case "Array", "Nullable", "LowCardinality", "Map", "Tuple":
		if len(n.Args) == 0 {
			return v
		}
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Pointer:
			return jsonTypedNode(n, rv.Elem().Interface())
		case reflect.Slice:
			out := make([]any, rv.Len())
			for i := range out {
				arg := n.Args[0]
				if n.Name == "Tuple" && i < len(n.Args) {
					arg = n.Args[i]
				}
				if arg.Type == nil {
					return v
				}
				out[i] = jsonTypedNode(arg.Type, rv.Index(i).Interface())
			}
			return out
		case reflect.Map:
			if n.Name != "Map" || len(n.Args) != 2 || n.Args[1].Type == nil {
				return v
			}
			out := make(map[string]any, rv.Len())
			for _, k := range rv.MapKeys() {
				out[fmt.Sprint(k.Interface())] = jsonTypedNode(n.Args[1].Type, rv.MapIndex(k).Interface())
			}
			return out
		}
		if n.Name == "Nullable" || n.Name == "LowCardinality" {
			return jsonTypedNode(n.Args[0].Type, v)
		}
	}
	return v
}
