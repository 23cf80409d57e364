package localzdm

import (
	"net/http"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// awaitSaved wraps a handler so that an answer leaves only once every change
// made before it is saved: nothing a client sees can be lost by a crash.
func awaitSaved(st *store.Store, h http.Handler) http.Handler {
	if !st.Persistent() {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&savedWriter{ResponseWriter: w, st: st}, r)
	})
}

// savedWriter waits for the journal before the first byte of an answer. When
// the journal cannot be written, the answer becomes a 500 that says so.
type savedWriter struct {
	http.ResponseWriter
	st      *store.Store
	checked bool
	failed  bool
}

func (w *savedWriter) check() bool {
	if !w.checked {
		w.checked = true
		if err := w.st.Sync(); err != nil {
			w.failed = true
			writeError(w.ResponseWriter, newError(http.StatusInternalServerError, CodeInternal,
				"the change was made in memory but could not be saved: %v", err))
		}
	}
	return !w.failed
}

func (w *savedWriter) WriteHeader(code int) {
	if w.check() {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *savedWriter) Write(b []byte) (int, error) {
	if !w.check() {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what is buffered, once the journal is saved.
func (w *savedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.check() {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *savedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
