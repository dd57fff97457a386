//go:build !unix

package connprobe

func probeFD(uintptr) Result { return Unknown }
