module github.com/chnative/chnative

go 1.26.0

require (
	github.com/go-faster/city v1.0.1
	github.com/klauspost/compress v1.20.4
	github.com/paulmach/orb v0.14.0
	github.com/pierrec/lz4/v4 v4.1.33
)

require (
	golang.org/x/crypto v0.59.0
	golang.org/x/sys v0.50.0 // indirect
)
