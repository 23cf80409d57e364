package connection

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

type indexed struct{ id, v string }

func indexedID(x *indexed) string { return x.id }

// TestIndexFindsEveryItemByID checks that an index finds each item of a
// list in any order, finds nothing for IDs the list lacks (including the
// empty one and those sorting before and after every ID), and returns the
// first of items that share an ID.
func TestIndexFindsEveryItemByID(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2)) //nolint:gosec // G404: a repeatable test order, not a secret.
	items := make([]indexed, 1000)
	for i := range items {
		items[i] = indexed{id: fmt.Sprintf("dev-%04d", 2*i+1), v: fmt.Sprint(i)}
	}
	rnd.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	items = append(items, indexed{id: items[10].id, v: "second"})
	x := NewIndex(items, indexedID)
	if x.Len() != len(items) {
		t.Fatalf("Len = %d, want %d", x.Len(), len(items))
	}
	for i := range items[:1000] {
		got, ok := x.Get(items[i].id)
		if !ok || got != &items[i] {
			t.Fatalf("Get(%q) = %v, %v; want item %d of the list itself", items[i].id, got, ok, i)
		}
	}
	for _, id := range []string{"", "dev-0000", "dev-0002", "dev-2000", "zzz", "dev-00"} {
		if got, ok := x.Get(id); ok {
			t.Errorf("Get(%q) = %v, want none", id, got)
		}
	}
	var none *Index[indexed]
	if _, ok := none.Get("dev-0001"); ok || none.Len() != 0 {
		t.Error("a nil index found an item")
	}
}
