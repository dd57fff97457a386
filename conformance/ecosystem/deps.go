// Package ecosystem tests chnative with the database/sql ecosystem: sqlx, GORM, golang-migrate,
// goose and go-sqlmock, against the test server.
package ecosystem
