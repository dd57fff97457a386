//go:build purego

package boxing

// Purego reports whether this is the purego build, whose boxes allocate per value.
const Purego = true
