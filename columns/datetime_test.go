package columns

import (
	"testing"
	"time"
)

func TestDateTimeLocation(t *testing.T) {
	msk, _ := time.LoadLocation("Europe/Moscow")
	c := mustNew(t, "DateTime('Europe/Moscow')").(*DateTime)
	appendAll(t, c, "2024-06-01 12:00:00") // wall time in the column's zone
	if got := c.Time(0); !got.Equal(time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)) || got.Location() != msk && got.Location().String() != "Europe/Moscow" {
		t.Fatalf("got %v", got)
	}
	c.SetLocation(time.UTC) // ignored: the type has its own zone
	if c.Location().String() != "Europe/Moscow" {
		t.Fatal("SetLocation changed a zoned column")
	}
	p := mustNew(t, "DateTime").(*DateTime)
	p.SetLocation(msk)
	appendAll(t, p, "2024-06-01 12:00:00")
	if got := p.Time(0); !got.Equal(time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("server-zone column: got %v", got)
	}
	if p.Values()[0] != uint32(time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC).Unix()) {
		t.Fatal("stored seconds")
	}
}

func TestDateRange(t *testing.T) {
	c := mustNew(t, "Date").(*Date)
	appendAll(t, c, time.Date(1970, 1, 1, 23, 59, 59, 0, time.UTC), time.Date(2149, 6, 6, 0, 0, 0, 0, time.UTC), uint16(65535))
	if v := c.Values(); v[0] != 0 || v[1] != 65535 || v[2] != 65535 {
		t.Fatalf("%v", v)
	}
	if got := c.Time(1); !got.Equal(time.Date(2149, 6, 6, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("%v", got)
	}
}
