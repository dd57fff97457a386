package chnative

import "database/sql/driver"

// The database/sql interfaces chnative implements, checked at compile time in one place.
var (
	_ driver.Driver                         = (*Driver)(nil)
	_ driver.DriverContext                  = (*Driver)(nil)
	_ driver.Connector                      = (*Connector)(nil)
	_ driver.Conn                           = (*conn)(nil)
	_ driver.ConnBeginTx                    = (*conn)(nil)
	_ driver.ConnPrepareContext             = (*conn)(nil)
	_ driver.QueryerContext                 = (*conn)(nil)
	_ driver.ExecerContext                  = (*conn)(nil)
	_ driver.Pinger                         = (*conn)(nil)
	_ driver.SessionResetter                = (*conn)(nil)
	_ driver.Validator                      = (*conn)(nil)
	_ driver.NamedValueChecker              = (*conn)(nil)
	_ Conn                                  = (*conn)(nil)
	_ driver.Tx                             = (*tx)(nil)
	_ driver.Stmt                           = (*stmt)(nil)
	_ driver.StmtExecContext                = (*stmt)(nil)
	_ driver.StmtQueryContext               = (*stmt)(nil)
	_ driver.Rows                           = (*rows)(nil)
	_ driver.RowsNextResultSet              = (*rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*rows)(nil)
	_ driver.RowsColumnTypePrecisionScale   = (*rows)(nil)
	_ driver.RowsColumnTypeLength           = (*rows)(nil)
)
