package types

// geoCases: Point, Ring, LineString, MultiLineString, Polygon, MultiPolygon.
func geoCases() []Case {
	return []Case{
		c("Point", "(0, 0)", "(-1.5, 2)", "(nan, inf)", "(1.7976931348623157e308, -0.)"),
		c("Ring", "[]", "[(0, 0), (1, 0), (1, 1), (0, 0)]"),
		c("LineString", "[]", "[(0, 0), (1.5, -2.25)]"),
		c("MultiLineString", "[]", "[[]]", "[[(0, 0), (1, 1)], [(2, 2)]]"),
		c("Polygon", "[]", "[[(0, 0), (10, 0), (10, 10), (0, 0)], [(1, 1), (2, 1), (1, 2), (1, 1)]]"),
		c("MultiPolygon", "[]", "[[[]]]", "[[[(0, 0), (1, 0), (0, 1), (0, 0)]], [[(5, 5), (6, 5), (5, 6), (5, 5)]]]"),
	}
}
