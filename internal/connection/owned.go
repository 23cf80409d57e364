package connection

import (
	"sync"
)

// ownedIDs is the set of workspaces, fleets and devices this provider
// configuration has read, created, adopted, updated or imported during the
// operation: objects that a resource manages, which an ambiguous create must
// never adopt.
type ownedIDs struct {
	mu  sync.Mutex
	ids map[ownedKey]struct{}
}

// ownedKey is an object of the set: its ID shares the memory of the string
// the caller holds (a million devices add no copy of their IDs).
type ownedKey struct{ kind, id string }
