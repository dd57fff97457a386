module github.com/chnative/chnative

go 1.26

require (
	github.com/go-faster/city v1.0.1
	github.com/klauspost/compress v1.20.4
	github.com/paulmach/orb v0.14.0
	github.com/pierrec/lz4/v4 v4.1.33
)
