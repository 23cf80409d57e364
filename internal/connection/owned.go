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
	ids map[string]struct{}
}

func ownedKey(kind, id string) string { return kind + "\x00" + id }
