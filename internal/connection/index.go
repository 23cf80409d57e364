package connection

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Index finds the items of a list by ID. It holds the positions of the
// items sorted by ID, four bytes an item, where a map keyed by ID costs
// about 55 bytes an item: the index of a workspace of a million devices
// takes 4 MB instead of 55. A lookup is a binary search (about 20
// comparisons at a million items).
//
// An Index and its items are shared: callers must not modify them.
type Index[T any] struct {
	items []T
	order []uint32
	idOf  func(*T) string
}

// NewIndex indexes items by idOf. Of items that share an ID, Get returns
// the first.
func NewIndex[T any](items []T, idOf func(*T) string) *Index[T] {
	if len(items) > math.MaxUint32 {
		panic("connection: a list of more than 2^32 items") // no service lists that many
	}
	order := make([]uint32, len(items))
	for i := range order {
		order[i] = uint32(i) //nolint:gosec // G115: len(items) is checked above.
	}
	slices.SortFunc(order, func(a, b uint32) int {
		if c := strings.Compare(idOf(&items[a]), idOf(&items[b])); c != 0 {
			return c
		}
		return cmp.Compare(a, b) // the first of items that share an ID first
	})
	return &Index[T]{items: items, order: order, idOf: idOf}
}

// Get returns the item of ID id.
func (x *Index[T]) Get(id string) (*T, bool) {
	if x == nil {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(x.order, id, func(p uint32, id string) int {
		return strings.Compare(x.idOf(&x.items[p]), id)
	})
	if !ok {
		return nil, false
	}
	return &x.items[x.order[i]], true
}

// Len returns the number of items indexed.
func (x *Index[T]) Len() int {
	if x == nil {
		return 0
	}
	return len(x.order)
}
