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

// Own records that a resource manages the kind object id.
func (d *ProviderData) Own(kind, id string) {
	if d == nil || id == "" {
		return
	}
	d.owned.mu.Lock()
	defer d.owned.mu.Unlock()
	if d.owned.ids == nil {
		d.owned.ids = map[string]struct{}{}
	}
	d.owned.ids[ownedKey(kind, id)] = struct{}{}
}

// Owns tells whether a resource manages the kind object id.
func (d *ProviderData) Owns(kind, id string) bool {
	d.owned.mu.Lock()
	defer d.owned.mu.Unlock()
	_, ok := d.owned.ids[ownedKey(kind, id)]
	return ok
}
