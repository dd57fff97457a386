package structmap

import "reflect"

// scanner is the shape of sql.Scanner, declared here so the package needs no database/sql.
type scanner interface{ Scan(any) error }

var scannerType = reflect.TypeFor[scanner]()

// isScanner reports whether *t implements scanner.
func isScanner(t reflect.Type) bool { return reflect.PointerTo(t).Implements(scannerType) }
