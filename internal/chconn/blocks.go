package chconn

import (
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/spare"
	"github.com/chnative/chnative/nativeproto"
)

// Block reuse between queries.
//
// Decoding a result block into a fresh Block makes its columns grow from nothing: a 1M-row block
// costs about 20 MB of allocation, zeroing and copying per query. So the connection keeps the
// blocks of the last query for the next one, whose columns then start at the capacity the last
// ones reached. blockCache is the one owner of those kept blocks, and its one rule is that a
// block has one role at a time:
//
//   - read: the first Data block of the last result (recv decodes the next result's first block,
//     or an Exec's, into it);
//   - ahead: the block the last result's read-ahead decoded into (readahead.go), for the next
//     result's read-ahead;
//   - insert: the block of the last insert, whose columns the next insert with the same header
//     reuses (insert.go).
//
// keep refuses a block that holds another role, so two roles never alias one block and a block
// the caller still reads is never decoded into by another role. A kept block's contents are
// invalid once the next query starts, as Result and the root's QueryBlocks and Rows document.
// The Result's own spare (the second block its read-ahead alternates with) is the Result's until
// it ends, when keepAheadReuse offers one of its two blocks back for the ahead role.
type blockCache struct {
	roles [numRoles]*nativeproto.Block
	// insertFilled records that a block this insert sent held more than block_keep_bytes of
	// values (insert.go notes it before emptying the block): trim's measure of a big insert, whose
	// block is empty by then. A result's blocks still hold their last rows at trim.
	insertFilled bool
}

// role is what a kept block is kept for.
type role int

const (
	roleRead role = iota
	roleAhead
	roleInsert
	numRoles
)

// get returns the block kept for r, or nil; it stays kept. A role with no block kept takes one
// from its spare pool (spareBlocks), when that has one.
func (k *blockCache) get(r role) *nativeproto.Block {
	if k.roles[r] == nil {
		k.roles[r] = takeSpare(r)
	}
	return k.roles[r]
}

// take returns the block kept for r and stops keeping it; one from spareBlocks, or a new block,
// when none is kept.
func (k *blockCache) take(r role) *nativeproto.Block {
	b := k.roles[r]
	k.roles[r] = nil
	if b == nil {
		b = takeSpare(r)
	}
	if b == nil {
		return nativeproto.NewBlock()
	}
	return b
}

// spareBlocks hold the blocks connections stopped keeping (trim: above block_keep_bytes), for
// the next big statement of any connection to reuse: result blocks in one cache, insert blocks in
// the other (an insert block is the caller's to append into, and is never handed to a result).
// They share the process-wide budget and idle time of package spare, so memory a connection no
// longer keeps is reused while big statements come one after another, and given back to the heap
// once they stop.
var spareBlocks = [2]*spare.Cache[*nativeproto.Block]{spare.New[*nativeproto.Block](), spare.New[*nativeproto.Block]()}

func spareFor(r role) *spare.Cache[*nativeproto.Block] {
	if r == roleInsert {
		return spareBlocks[1]
	}
	return spareBlocks[0]
}

func takeSpare(r role) *nativeproto.Block {
	b, _ := spareFor(r).Get()
	return b
}

// keep keeps b for r, unless b is kept for another role (then it reports false and changes
// nothing). A nil b stops keeping a block for r.
func (k *blockCache) keep(r role, b *nativeproto.Block) bool {
	if b != nil {
		for o, kept := range k.roles {
			if role(o) != r && kept == b {
				return false
			}
		}
	}
	k.roles[r] = b
	return true
}

// takeAhead returns the block for a read-ahead to decode into.
func (k *blockCache) takeAhead() *nativeproto.Block { return k.take(roleAhead) }

// keepAhead offers b for the next read-ahead (see keep).
func (k *blockCache) keepAhead(b *nativeproto.Block) bool { return k.keep(roleAhead, b) }

// trim stops keeping every block whose retained memory (nativeproto.Block.Retained) is above
// limit bytes, so what a connection keeps between queries is bounded whatever its last query
// read or inserted (numRoles x limit); such a block goes to spareBlocks (when it fits their
// budget). A block at most limit bytes stays, so a connection running ordinary statements reuses
// its blocks and allocates nothing for them. Call it only once the statement has ended: nothing
// may decode into or append to a block trim lets go.
//
// The role of a block the statement filled past limit is left empty, so that the next statement
// takes a spare block again (big statements one after another reuse the same memory). A block
// big only by the capacity a spare brought, holding a small statement's rows, is replaced by a
// new one instead: otherwise every small statement would take the big block and give it back.
func (k *blockCache) trim(limit int64) {
	for r, b := range k.roles {
		size := b.Retained(dsn.SpareBudget) // one walk: above the budget it stops, and Put refuses b
		if size <= limit {
			continue
		}
		filled := k.insertFilled
		if role(r) != roleInsert {
			filled = b.DataBytes(limit) > limit
		}
		k.roles[r] = nil
		if !filled {
			k.roles[r] = nativeproto.NewBlock()
		}
		spareFor(role(r)).Put(b, size)
	}
	k.insertFilled = false
}

// keptBytes returns the retained memory of the blocks kept (for tests and the debug log).
func (k *blockCache) keptBytes() int64 {
	var n int64
	for _, b := range k.roles {
		n += b.Retained(1 << 62)
	}
	return n
}

// trimKept bounds what the connection keeps once a query or an insert has ended: the blocks
// above the DSN's block_keep_bytes are dropped (blockCache.trim) and the packet reader's and
// writer's buffers, grown by a big block or frame, shrink back to their usual sizes. It must
// run only while nothing reads or writes the connection (no read-ahead, no drain).
func (c *Conn) trimKept() {
	keep := int64(c.cfg.BlockKeepBytes)
	c.blocks.trim(keep)
	c.pr.Shrink(keep)
	c.pw.Shrink()
}
