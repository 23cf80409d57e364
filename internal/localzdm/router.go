package localzdm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// call is one request routed to a handler.
type call struct {
	s      *Server
	w      http.ResponseWriter
	r      *http.Request
	params map[string]string
	// keyWorkspace is the workspace the API key is bound to (API routes only).
	keyWorkspace string
}

// handlerFunc serves a routed request. It returns the value to answer with
// status 200 (encoded as JSON, or streamed when it is a streamer), or an error.
type handlerFunc func(c *call) (any, error)

// streamer is a response body written piece by piece instead of being
// marshaled in one go.
type streamer interface {
	writeJSON(w *bufio.Writer) error
}

type route struct {
	method  string
	pattern string
	segs    []string
	// mutating marks routes that act on a POST: DropAfterCreate applies.
	mutating bool
	handle   handlerFunc
	// body and doc document an admin route: the body it reads, and the Go
	// method of the same effect with what it answers.
	body, doc string
}

type router struct {
	routes []*route
}

func newRouter(routes ...*route) *router {
	for _, r := range routes {
		r.segs = strings.Split(strings.TrimPrefix(r.pattern, "/"), "/")
	}
	return &router{routes: routes}
}

// splitPath splits an escaped URL path into unescaped segments, so that an
// escaped slash stays inside its segment.
func splitPath(escaped string) ([]string, bool) {
	if !strings.HasPrefix(escaped, "/") {
		return nil, false
	}
	parts := strings.Split(escaped[1:], "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil {
			return nil, false
		}
		parts[i] = u
	}
	return parts, true
}

// match finds the route for method and path segments. When the path matches
// routes of other methods only, it returns nil and the allowed methods; when
// nothing matches, nil and no methods.
func (rt *router) match(method string, segs []string) (*route, map[string]string, []string) {
	var allowed []string
	var pathMatch *route
	for _, r := range rt.routes {
		if len(r.segs) != len(segs) || !segsMatch(r.segs, segs) {
			continue
		}
		if r.method != method {
			if !slices.Contains(allowed, r.method) {
				allowed = append(allowed, r.method)
			}
			if pathMatch == nil {
				pathMatch = r
			}
			continue
		}
		params := make(map[string]string, 2)
		for i, p := range r.segs {
			if isWildcard(p) {
				params[p[1:len(p)-1]] = segs[i]
			}
		}
		return r, params, nil
	}
	slices.Sort(allowed)
	return pathMatch, nil, allowed
}

func isWildcard(p string) bool {
	return len(p) > 2 && p[0] == '{' && p[len(p)-1] == '}'
}

func segsMatch(pattern, segs []string) bool {
	for i, p := range pattern {
		if isWildcard(p) {
			if segs[i] == "" {
				return false
			}
			continue
		}
		if p != segs[i] {
			return false
		}
	}
	return true
}

// methodNotAllowed sets the Allow header and returns the 405 error.
func methodNotAllowed(w http.ResponseWriter, method string, allowed []string) error {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	return newError(http.StatusMethodNotAllowed, CodeMethodNotAllowed,
		"method %s is not allowed on this path; allowed: %s", method, strings.Join(allowed, ", "))
}

// writeMethodNotAllowed answers 405 with the Allow header.
func writeMethodNotAllowed(w http.ResponseWriter, method string, allowed []string) {
	writeError(w, methodNotAllowed(w, method, allowed))
}

func routeNotFound(r *http.Request) error {
	return notFound("no route for %s %s", r.Method, r.URL.Path)
}

func writeRouteNotFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, routeNotFound(r))
}

// writeJSON answers 200 with v as JSON; a streamer writes itself.
func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	if st, ok := v.(streamer); ok {
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := st.writeJSON(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(data)
	return err
}

// jsonList is a streamed `{"<key>": [items...]}` body.
type jsonList[T any] struct {
	key   string
	items []T
}

func (l jsonList[T]) writeJSON(w *bufio.Writer) error {
	if _, err := fmt.Fprintf(w, "{%q:[", l.key); err != nil {
		return err
	}
	for i := range l.items {
		if i > 0 {
			if err := w.WriteByte(','); err != nil {
				return err
			}
		}
		data, err := json.Marshal(&l.items[i])
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	_, err := w.WriteString("]}\n")
	return err
}

// maxAPIBody bounds the body of API requests.
const maxAPIBody = 1 << 20

// readBody reads the request body up to limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, newError(http.StatusRequestEntityTooLarge, CodeBodyTooLarge,
				"request body is larger than %s, the limit for %s %s: send a smaller body", byteSize(limit), r.Method, r.URL.Path)
		}
		return nil, invalidArgument("cannot read request body: %v", err)
	}
	return data, nil
}

// byteSize renders a byte count, in MiB when it is a whole number of them.
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// decodeBody decodes a JSON object body of an API request (at most
// maxAPIBody bytes) into dst. An empty body is an error when required is
// set and leaves dst untouched otherwise.
func decodeBody(w http.ResponseWriter, r *http.Request, dst any, required bool) error {
	data, err := readBody(w, r, maxAPIBody)
	if err != nil {
		return err
	}
	return decodeJSON(data, dst, required)
}

// checkJSONBody refuses an empty body when one is required, and a body
// that is not UTF-8.
func checkJSONBody(data []byte, required bool) error {
	if len(bytes.TrimSpace(data)) == 0 {
		if required {
			return newError(http.StatusBadRequest, CodeInvalidJSON, "request body is required: a JSON object")
		}
		return nil
	}
	if !utf8.Valid(data) {
		return newError(http.StatusBadRequest, CodeInvalidJSON, "request body is not valid UTF-8")
	}
	return nil
}

func decodeJSON(data []byte, dst any, required bool) error {
	if err := checkJSONBody(data, required); err != nil || len(bytes.TrimSpace(data)) == 0 {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(dst); err != nil {
		return describeJSONError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return newError(http.StatusBadRequest, CodeInvalidJSON, "malformed JSON: unexpected data after the JSON object")
	}
	return nil
}

func describeJSONError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var own *Error
	switch {
	case errors.As(err, &own):
		return own
	case errors.As(err, &syn):
		return newError(http.StatusBadRequest, CodeInvalidJSON, "malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return newError(http.StatusBadRequest, CodeInvalidJSON, "request body must be a JSON object, not %s", typ.Value)
		}
		return invalidArgument("field %q must be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return newError(http.StatusBadRequest, CodeInvalidJSON, "malformed JSON: unexpected end of input")
	default:
		return newError(http.StatusBadRequest, CodeInvalidJSON, "malformed JSON: %v", err)
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "float32", "float64":
		return "a number"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	default:
		return "a " + goKind
	}
}

// Limits on names and descriptions (the spec shows none; see doc.go).
const (
	maxNameLen        = 255
	maxDescriptionLen = 1024
)

// requireName validates a required name field: present, not blank after
// trimming, at most maxNameLen characters. The value is kept as given.
func requireName(field string, v *string) (string, error) {
	if v == nil {
		return "", invalidArgument("%q is required", field)
	}
	if strings.TrimSpace(*v) == "" {
		return "", invalidArgument("%q must not be empty or blank", field)
	}
	if n := utf8.RuneCountInString(*v); n > maxNameLen {
		return "", invalidArgument("%q is %d characters long; at most %d are allowed", field, n, maxNameLen)
	}
	return *v, nil
}

// optionalDescription validates an optional description field.
func optionalDescription(v *string) (string, error) {
	if v == nil {
		return "", nil
	}
	if n := utf8.RuneCountInString(*v); n > maxDescriptionLen {
		return "", invalidArgument("%q is %d characters long; at most %d are allowed", "description", n, maxDescriptionLen)
	}
	return *v, nil
}

// singleQuery returns the only value of a query parameter, whether it was
// present, or an error when it is repeated.
func singleQuery(q url.Values, name string) (string, bool, error) {
	vs, ok := q[name]
	if !ok {
		return "", false, nil
	}
	if len(vs) > 1 {
		return "", true, invalidArgument("query parameter %q is given %d times; give it at most once", name, len(vs))
	}
	return vs[0], true, nil
}

// repeatedQuery returns the distinct values of a repeatable query parameter,
// in order, rejecting empty values.
func repeatedQuery(q url.Values, name string) ([]string, error) {
	vs := q[name]
	out := make([]string, 0, len(vs))
	seen := make(map[string]bool, len(vs))
	for _, v := range vs {
		if v == "" {
			return nil, invalidArgument("query parameter %q must not be empty", name)
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}
