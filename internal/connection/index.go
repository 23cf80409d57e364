package connection

import (
	"hash/maphash"
	"math"
	"math/bits"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// Index finds the items of a list by ID. It is a hash table of positions
// in the list (open addressing, at most half full): 4 to 8 bytes an item,
// where a map keyed by ID costs about 55 bytes an item, so the index of a
// workspace of a million devices takes 8 MB instead of 55. A lookup hashes
// the ID and compares it with the IDs of the items in its chain, as a map
// does.
//
// An Index and its items are shared: callers must not modify them.
type Index[T any] struct {
	items []T
	slots []uint32 // position+1 of an item, 0 for an empty slot
	mask  uint64
	seed  maphash.Seed
	idOf  func(*T) string
}

// NewIndex indexes items by idOf. Of items that share an ID, Get returns
// the first.
func NewIndex[T any](items []T, idOf func(*T) string) *Index[T] {
	if len(items) >= math.MaxUint32/2 {
		panic("connection: a list of more than 2^31 items") // no service lists that many
	}
	size := uint64(1) << max(bits.Len64(uint64(2*len(items))), 3)
	x := &Index[T]{items: items, slots: make([]uint32, size), mask: size - 1, seed: maphash.MakeSeed(), idOf: idOf}
	for i := range items {
		s := maphash.String(x.seed, idOf(&items[i])) & x.mask
		for x.slots[s] != 0 {
			s = (s + 1) & x.mask
		}
		x.slots[s] = uint32(i) + 1 //nolint:gosec // G115: len(items) is checked above.
	}
	return x
}

// IndexDevices indexes listed devices by ID.
func IndexDevices(all []client.Device) *Index[client.Device] {
	return NewIndex(all, deviceID)
}

func deviceID(d *client.Device) string { return d.ID }

// Get returns the item of ID id.
func (x *Index[T]) Get(id string) (*T, bool) {
	if x == nil {
		return nil, false
	}
	for s := maphash.String(x.seed, id) & x.mask; x.slots[s] != 0; s = (s + 1) & x.mask {
		if it := &x.items[x.slots[s]-1]; x.idOf(it) == id {
			return it, true
		}
	}
	return nil, false
}

// Len returns the number of items indexed.
func (x *Index[T]) Len() int {
	if x == nil {
		return 0
	}
	return len(x.items)
}
