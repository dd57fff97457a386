package columns

import "testing"

// TestGeoElem: every geo type but Point is an Array of the geo type one level shallower, and
// GeoElem names it.
func TestGeoElem(t *testing.T) {
	want := map[string]string{"Ring": "Point", "LineString": "Point", "MultiLineString": "LineString", "Polygon": "Ring", "MultiPolygon": "Polygon"}
	for kind, depth := range geoDepth {
		elem, ok := GeoElem(kind)
		if kind == "Point" {
			if ok {
				t.Fatalf("GeoElem(Point) = %q, want none", elem)
			}
			continue
		}
		if !ok || elem != want[kind] {
			t.Fatalf("GeoElem(%s) = %q, %v; want %q", kind, elem, ok, want[kind])
		}
		if geoDepth[elem] != depth-1 {
			t.Fatalf("%s (depth %d) holds %s of depth %d", kind, depth, elem, geoDepth[elem])
		}
	}
	if _, ok := GeoElem("Array"); ok {
		t.Fatal("GeoElem(Array) reported an element")
	}
}
