module github.com/chnative/chnative/conformance

go 1.26

require github.com/chnative/chnative v0.0.0

replace github.com/chnative/chnative => ../
