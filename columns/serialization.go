package columns

import (
	"slices"
	"strconv"
)

// Kind is a serialization kind of a column's data in one block (ISerialization::Kind). A server
// that a client of revision 54465 or above talks to may send a column in a kind other than the
// type's own (DEFAULT) encoding: SPARSE from 54465 (Nullable columns from 54483), REPLICATED from
// 54482. The kinds of a column form a stack, DEFAULT at the bottom: each kind above wraps the
// encoding below it.
type Kind uint8

// The serialization kinds.
const (
	KindDefault    Kind = 0 // the type's own encoding
	KindSparse     Kind = 1 // positions of the non-default rows, then only those values
	KindDetached   Kind = 2 // MergeTree parts only; never valid in a block
	KindReplicated Kind = 3 // one index per row into a column of the distinct rows
)

// String returns the kind's name as ClickHouse spells it ("Default", "Sparse", ...).
func (k Kind) String() string {
	switch k {
	case KindDefault:
		return "Default"
	case KindSparse:
		return "Sparse"
	case KindDetached:
		return "Detached"
	case KindReplicated:
		return "Replicated"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Kind-stack codes, the first byte of a stack on the wire (KindStackBinarySerializationType).
const (
	stackDefault            = 0 // {DEFAULT}
	stackSparse             = 1 // {DEFAULT, SPARSE}
	stackDetached           = 2 // {DEFAULT, DETACHED}
	stackDetachedOverSparse = 3 // {DEFAULT, SPARSE, DETACHED}
	stackReplicated         = 4 // {DEFAULT, REPLICATED}
	stackCombination        = 5 // UVarInt n, then n kinds

	maxKindStack = 8 // kinds in one stack; real stacks have at most three
)

// Limits of the data a custom serialization expands. Sparse data describes many rows in few bytes
// and replicated data repeats rows, so unlike the type's own encoding their output is not bounded
// by the input received: these caps bound it instead.
const (
	// MaxExpandedRows caps the rows of a sparse column, and the rows (and nested elements) a
	// replicated column expands to.
	MaxExpandedRows = 1 << 24
	// MaxExpandedBytes caps the string bytes a replicated String column expands to, and the bytes
	// of a sparse or replicated FixedString column.
	MaxExpandedBytes = 1 << 30
)

// noRow in a gather index list stands for the type's default value (a row sparse data leaves out).
const noRow = ^uint32(0)

// Serialization is how one column of one block is serialized: the kind stack the server sent after
// has_custom = 1 and, for a Tuple, the serialization of each element. It decodes the column's
// prefix and data in that serialization into a column of the type, which then holds the same
// values as if the server had sent the type's own encoding: the layers above nativeproto and
// columns never see a sparse or replicated column.
//
// A Serialization keeps the scratch columns and index buffers its layers decode into, so reusing it
// for the same column block after block allocates nothing once those have grown. The memory a
// layer expands to is bounded by the block's rows (MaxExpandedRows, MaxExpandedBytes), and every
// count and index is checked before it is used.
type Serialization struct {
	kinds []Kind           // bottom first; kinds[0] is KindDefault
	elems []*Serialization // one per element when the column is a Tuple (Point, SimpleAggregateFunction of a Tuple)

	// Bound by bind for one block: levels[m].col holds the values of the stack kinds[:m], for m =
	// 1 .. len(kinds); levels[len(kinds)].col is the column being decoded, the others are scratch
	// columns reused while their type stays the same.
	levels []level
	// The column and kinds of the last bind: when both are the same again, so are the scratch
	// columns, and bind does not compare type names (building some allocates).
	boundCol   Column
	boundKinds []Kind
}

// level is one layer of a Serialization: its column and the buffers of the layer that fills it.
type level struct {
	col Column
	pos []uint32 // sparse: positions of the non-default rows
	idx []uint32 // gather indexes, noRow for a default row
	raw []byte   // replicated: the raw indexes
}

// tupleOf returns the Tuple that holds col's data when col's serialization info is a tuple's
// (Tuple, Point, SimpleAggregateFunction of one of those), else nil.
func tupleOf(col Column) *Tuple {
	switch c := col.(type) {
	case *Tuple:
		return c
	case *Geo:
		if t, ok := c.inner.(*Tuple); ok {
			return t
		}
	case *SimpleAggregateFunction:
		return tupleOf(c.inner)
	}
	return nil
}

// nullableOf returns the Nullable that col is (directly or as a SimpleAggregateFunction of it).
func nullableOf(col Column) *Nullable {
	switch c := col.(type) {
	case *Nullable:
		return c
	case *SimpleAggregateFunction:
		return nullableOf(c.inner)
	}
	return nil
}

// ReadKinds reads the kind stacks of a column like col (after has_custom = 1): one stack, and for a
// Tuple the stacks of its elements after it, recursively. It replaces what s held and binds s to
// col for the ReadPrefix and Read that follow.
func (s *Serialization) ReadKinds(r *Reader, col Column) error {
	if err := s.readKinds(r, col); err != nil {
		return err
	}
	return s.bind(col)
}

func (s *Serialization) readKinds(r *Reader, col Column) error {
	code, err := r.Byte()
	if err != nil {
		return decodeErr(col, "serialization kind: %v", unexpected(err))
	}
	s.kinds = s.kinds[:0]
	switch code {
	case stackDefault:
		s.kinds = append(s.kinds, KindDefault)
	case stackSparse:
		s.kinds = append(s.kinds, KindDefault, KindSparse)
	case stackReplicated:
		s.kinds = append(s.kinds, KindDefault, KindReplicated)
	case stackDetached, stackDetachedOverSparse:
		return decodeErr(col, "serialization kind stack %d holds Detached, which only MergeTree parts use", code)
	case stackCombination:
		n, err := r.Count("serialization kinds", maxKindStack)
		if err != nil {
			return decodeErr(col, "serialization kind count: %v", unexpected(err))
		}
		for range n {
			k, err := r.Byte()
			if err != nil {
				return decodeErr(col, "serialization kind: %v", unexpected(err))
			}
			s.kinds = append(s.kinds, Kind(k))
		}
		if err := checkKinds(s.kinds); err != nil {
			return decodeErr(col, "%v", err)
		}
	default:
		return decodeErr(col, "unknown serialization kind stack %d", code)
	}
	t := tupleOf(col)
	if t == nil {
		s.elems = s.elems[:0]
		return nil
	}
	for len(s.elems) < len(t.elems) {
		s.elems = append(s.elems, new(Serialization))
	}
	s.elems = s.elems[:len(t.elems)]
	for j, e := range t.elems {
		if err := s.elems[j].readKinds(r, e); err != nil {
			return err
		}
	}
	return nil
}

// checkKinds accepts a stack DEFAULT, then any of SPARSE and REPLICATED.
func checkKinds(kinds []Kind) error {
	if len(kinds) == 0 || kinds[0] != KindDefault {
		return &DecodeError{Type: "serialization", Msg: "kind stack does not start with Default"}
	}
	for _, k := range kinds[1:] {
		switch k {
		case KindSparse, KindReplicated:
		case KindDetached:
			return &DecodeError{Type: "serialization", Msg: "kind stack holds Detached, which only MergeTree parts use"}
		default:
			return &DecodeError{Type: "serialization", Msg: "kind stack holds " + k.String()}
		}
	}
	return nil
}

// IsDefault reports whether every stack of s is {DEFAULT}: the data is in the type's own encoding.
func (s *Serialization) IsDefault() bool {
	if len(s.kinds) > 1 {
		return false
	}
	for _, e := range s.elems {
		if !e.IsDefault() {
			return false
		}
	}
	return true
}

// Kinds returns the kind stack of the column, bottom first (borrowed).
func (s *Serialization) Kinds() []Kind { return s.kinds }

// Elem returns the serialization of Tuple element j, or nil when the column is not a Tuple.
func (s *Serialization) Elem(j int) *Serialization {
	if j < len(s.elems) {
		return s.elems[j]
	}
	return nil
}

// String describes s as ClickHouse's system.parts_columns names kinds: "Default" or the kinds
// above it, bottom first ("Sparse", "Replicated", "Sparse/Replicated"), and for a Tuple the
// element serializations in parentheses, e.g. "Default(Sparse, Default)".
func (s *Serialization) String() string {
	var b []byte
	kinds := s.kinds
	if len(kinds) > 1 {
		kinds = kinds[1:]
	}
	for i, k := range kinds {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, k.String()...)
	}
	if len(s.elems) > 0 {
		b = append(b, '(')
		for j, e := range s.elems {
			if j > 0 {
				b = append(b, ", "...)
			}
			b = append(b, e.String()...)
		}
		b = append(b, ')')
	}
	return string(b)
}

// bind sets col as the column s decodes into and makes (or reuses) the scratch columns of the layers
// below the top of the stack.
func (s *Serialization) bind(col Column) error {
	n := len(s.kinds)
	if col == s.boundCol && slices.Equal(s.kinds, s.boundKinds) && len(s.levels) == n+1 {
		return s.bindElems(s.levels[1].col)
	}
	s.boundCol, s.boundKinds = nil, append(s.boundKinds[:0], s.kinds...)
	for len(s.levels) <= n {
		s.levels = append(s.levels, level{})
	}
	s.levels = s.levels[:n+1]
	s.levels[0].col = nil
	s.levels[n].col = col
	target := col
	for m := n - 1; m >= 1; m-- {
		// Layer kinds[m] decodes the values of kinds[:m] into levels[m]: a column of target's type,
		// except that sparse data of a Nullable right above DEFAULT carries only the non-NULL values
		// of its nested type (SerializationSparse over a Nullable with no null map).
		want := target
		if s.kinds[m] == KindSparse && m == 1 {
			if nc := nullableOf(target); nc != nil {
				want = nc.inner
			}
		}
		sc := s.levels[m].col
		if sc == nil || sc == want || sc.Type() != want.Type() {
			var err error
			if sc, err = New(want.Type()); err != nil {
				return decodeErr(col, "scratch column for %s serialization: %v", s.kinds[m], err)
			}
		}
		s.levels[m].col = sc
		target = sc
	}
	if err := s.bindElems(target); err != nil {
		return err
	}
	s.boundCol = col
	return nil
}

// bindElems binds the element serializations to the elements of bottom, the column that decodes
// the DEFAULT layer.
func (s *Serialization) bindElems(bottom Column) error {
	if len(s.elems) == 0 {
		return nil
	}
	t := tupleOf(bottom)
	if t == nil || len(t.elems) != len(s.elems) {
		return decodeErr(bottom, "element serializations for a column that is not a tuple of %d elements", len(s.elems))
	}
	for j, e := range s.elems {
		if err := e.bind(t.elems[j]); err != nil {
			return err
		}
	}
	return nil
}

// ReadPrefix reads the state prefix of the bound column. Sparse and replicated layers have no
// prefix of their own: the prefix belongs to the column at the bottom, which decodes the data.
func (s *Serialization) ReadPrefix(r *Reader) error {
	bottom := s.levels[1].col
	if len(s.elems) == 0 {
		return bottom.ReadPrefix(r)
	}
	for _, e := range s.elems {
		if err := e.ReadPrefix(r); err != nil {
			return err
		}
	}
	return nil
}

// Read replaces the contents of the bound column with rows values decoded from r. On error the
// column is left empty.
func (s *Serialization) Read(r *Reader, rows int) error {
	col := s.levels[len(s.kinds)].col
	if err := checkRows(col, rows); err != nil {
		col.Reset()
		return err
	}
	if err := s.readLevel(r, len(s.kinds), rows); err != nil {
		col.Reset()
		return err
	}
	return nil
}

// readLevel decodes rows values of the stack kinds[:m] into levels[m].
func (s *Serialization) readLevel(r *Reader, m, rows int) error {
	dst := s.levels[m].col
	if m == 1 {
		return s.readDefault(r, dst, rows)
	}
	switch s.kinds[m-1] {
	case KindSparse:
		return s.readSparse(r, m, dst, rows)
	case KindReplicated:
		return s.readReplicated(r, m, dst, rows)
	}
	return decodeErr(dst, "%s serialization is not supported", s.kinds[m-1])
}

// readDefault decodes the type's own encoding; a Tuple's elements each in their own serialization.
func (s *Serialization) readDefault(r *Reader, dst Column, rows int) error {
	if len(s.elems) == 0 {
		return dst.Read(r, rows)
	}
	t := tupleOf(dst)
	t.rows = 0
	for _, e := range s.elems {
		if err := e.Read(r, rows); err != nil {
			t.Reset()
			return err
		}
	}
	t.rows = rows
	return nil
}
