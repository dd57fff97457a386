// Package ecosystem tests chnative with the database/sql ecosystem: sqlx, GORM, golang-migrate,
// goose, go-sqlmock and otelsql (OpenTelemetry), against the test server.
package ecosystem
