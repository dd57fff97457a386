package nativeproto

import "time"

// ProfileEvent is one counter of a ProfileEvents packet (servers from protocol revision 54451,
// ClickHouse 21.12 on; older servers send none), one row of its block. It has exactly the fields
// of the root package's ProfileEvent, so that type can be an alias of this one.
type ProfileEvent struct {
	Host     string
	Time     time.Time
	ThreadID uint64
	Type     string // "increment" or "gauge"
	Name     string
	Value    int64
}

// profileEventTypes names the values of the type column's Enum8 when it arrives as a number.
var profileEventTypes = map[int64]string{1: "increment", 2: "gauge"}

// DecodeProfileEvents turns a ProfileEvents block into one event per row. Columns are found by
// name; a missing column, or one of a type other than expected, leaves its field at the zero
// value. The type column is taken as text (an Enum8's name) or, as a number, 1 "increment" and
// 2 "gauge" (other numbers give "").
//
// A block with rows but none of the layout's columns, or more than MaxLogBlockRows rows, is a
// *ProtocolError, before anything is allocated. The returned slice and its strings are the
// caller's; b may be reused as soon as it returns.
func DecodeProfileEvents(b *Block) ([]ProfileEvent, error) {
	if err := checkLogBlock(b, "profile events", profileEventColumns); err != nil {
		return nil, err
	}
	host, tm, thread := b.columnNamed("host_name"), b.columnNamed("current_time"), b.columnNamed("thread_id")
	typ, name, val := b.columnNamed("type"), b.columnNamed("name"), b.columnNamed("value")
	out := make([]ProfileEvent, b.Rows())
	for i := range out {
		e := &out[i]
		e.Host, _ = valueAt(host, i).(string)
		e.Time, _ = valueAt(tm, i).(time.Time)
		e.ThreadID, _ = toUint(valueAt(thread, i))
		switch t := valueAt(typ, i).(type) {
		case string:
			e.Type = t
		default:
			if n, ok := toInt(t); ok {
				e.Type = profileEventTypes[n]
			}
		}
		e.Name, _ = valueAt(name, i).(string)
		e.Value, _ = toInt(valueAt(val, i))
	}
	return out, nil
}
