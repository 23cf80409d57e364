// Package store is the state of the local ZDM server: the management model
// (accounts, workspaces, fleets, devices, API keys, the bootstrap record) and
// the data points of the storage service, with their persistence in a state
// file, its journal and its lock. It knows nothing of HTTP.
package store

import (
	"sync"
)

// maxNameLen bounds the names of a state file, as the API bounds them.
const maxNameLen = 255

// Store holds the model and, with a state file, keeps it.
type Store struct {
	// Mu guards the management model below.
	Mu           sync.RWMutex
	Accounts     map[string]*Account
	AccountOrder []string
	Workspaces   map[string]*Workspace
	Fleets       map[string]*Fleet
	Devices      map[string]*Device
	Keys         map[string]string // API key -> workspace ID
	Boot         *Bootstrap        // the bootstrap record, if any

	// DataMu guards Series. Lock order: Mu before DataMu.
	DataMu sync.RWMutex
	Series map[string]*Series // workspace ID -> data points

	logf     func(string, ...any)
	path     string // the state file, once OpenState resolved it
	syncMode bool
	lock     *stateLock // the state file's lock, while open
	persist  *persister // nil without a state file
}

// New returns an empty store logging to logf.
func New(logf func(string, ...any)) *Store {
	s := &Store{Series: map[string]*Series{}, logf: logf}
	s.ResetStateLocked()
	return s
}

// Persistent reports whether the store keeps a state file.
func (s *Store) Persistent() bool { return s.persist != nil }

// StatePath is the state file with its symbolic links resolved; empty
// without one.
func (s *Store) StatePath() string { return s.path }
