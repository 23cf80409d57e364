package connection

import (
	"sync"
)

// ownedIDs is the set of workspaces, fleets and devices this provider
// configuration has read, created, adopted, updated or imported during the
// operation: objects that a resource manages, which an ambiguous create must
// never adopt.
//
// The IDs of each kind are a set of their own, keyed by the ID alone (16
// bytes a slot, where a key of kind and ID took 32: a million devices are a
// million entries). An ID shares the memory of the string the caller holds,
// so the set adds no copy of it.
type ownedIDs struct {
	mu     sync.Mutex
	byKind map[string]map[string]struct{}
}

func (o *ownedIDs) add(kind, id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	ids := o.byKind[kind]
	if ids == nil {
		if o.byKind == nil {
			o.byKind = map[string]map[string]struct{}{}
		}
		ids = map[string]struct{}{}
		o.byKind[kind] = ids
	}
	ids[id] = struct{}{}
}

func (o *ownedIDs) has(kind, id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.byKind[kind][id]
	return ok
}
