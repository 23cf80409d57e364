// Package httpio is the HTTP plumbing shared by the localzdm services and
// its admin API: route matching, JSON answers, request bodies and the strict
// decoding of admin input.
package httpio

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

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
)

// Streamer is a response body written piece by piece instead of being
// marshaled in one go.
type Streamer interface {
	WriteJSON(w *bufio.Writer) error
}

// Route is one route of a Router; H is the handler type of its service.
type Route[H any] struct {
	Method  string
	Pattern string
	segs    []string
	// Mutating marks routes that act on a POST: DropAfterCreate applies.
	Mutating bool
	Handle   H
	// Body and Doc document an admin route: the body it reads, and the Go
	// method of the same effect with what it answers.
	Body, Doc string
	// Query lists the query parameters an admin route reads; the admin API
	// refuses any other.
	Query []string
}

// Router matches requests to its routes, in order.
type Router[H any] struct {
	Routes []*Route[H]
}

// NewRouter returns a router of the routes, in that order.
func NewRouter[H any](routes ...*Route[H]) *Router[H] {
	for _, r := range routes {
		r.segs = strings.Split(strings.TrimPrefix(r.Pattern, "/"), "/")
	}
	return &Router[H]{Routes: routes}
}

// SplitPath splits an escaped URL path into unescaped segments, so that an
// escaped slash stays inside its segment.
func SplitPath(escaped string) ([]string, bool) {
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

// Match finds the route for method and path segments. When the path matches
// routes of other methods only, it returns nil and the allowed methods; when
// nothing matches, nil and no methods.
func (rt *Router[H]) Match(method string, segs []string) (*Route[H], map[string]string, []string) {
	var allowed []string
	var pathMatch *Route[H]
	for _, r := range rt.Routes {
		if len(r.segs) != len(segs) || !segsMatch(r.segs, segs) {
			continue
		}
		if r.Method != method {
			if !slices.Contains(allowed, r.Method) {
				allowed = append(allowed, r.Method)
			}
			if pathMatch == nil {
				pathMatch = r
			}
			continue
		}
		params := make(map[string]string, 2)
		for i, p := range r.segs {
			if IsWildcard(p) {
				params[p[1:len(p)-1]] = segs[i]
			}
		}
		return r, params, nil
	}
	slices.Sort(allowed)
	return pathMatch, nil, allowed
}

// IsWildcard reports whether a pattern segment is a parameter ("{name}").
func IsWildcard(p string) bool {
	return len(p) > 2 && p[0] == '{' && p[len(p)-1] == '}'
}

func segsMatch(pattern, segs []string) bool {
	for i, p := range pattern {
		if IsWildcard(p) {
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

// MethodNotAllowed sets the Allow header and returns the 405 error.
func MethodNotAllowed(w http.ResponseWriter, method string, allowed []string) error {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	return apierr.New(http.StatusMethodNotAllowed, apierr.CodeMethodNotAllowed,
		"method %s is not allowed on this path; allowed: %s", method, strings.Join(allowed, ", "))
}

// WriteMethodNotAllowed answers 405 with the Allow header.
func WriteMethodNotAllowed(w http.ResponseWriter, method string, allowed []string) {
	apierr.Write(w, MethodNotAllowed(w, method, allowed))
}

// RouteNotFound is the 404 of a path no route serves.
func RouteNotFound(r *http.Request) error {
	return apierr.NotFound("no route for %s %s", r.Method, r.URL.Path)
}

// WriteRouteNotFound answers RouteNotFound.
func WriteRouteNotFound(w http.ResponseWriter, r *http.Request) {
	apierr.Write(w, RouteNotFound(r))
}

// WriteJSON answers 200 with v as JSON; a Streamer writes itself.
func WriteJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	if st, ok := v.(Streamer); ok {
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := st.WriteJSON(bw); err != nil {
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

// List is a streamed `{"<key>": [items...]}` body.
type List[T any] struct {
	Key   string
	Items []T
}

func (l List[T]) WriteJSON(w *bufio.Writer) error {
	if _, err := fmt.Fprintf(w, "{%q:[", l.Key); err != nil {
		return err
	}
	for i := range l.Items {
		if i > 0 {
			if err := w.WriteByte(','); err != nil {
				return err
			}
		}
		data, err := json.Marshal(&l.Items[i])
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

// MaxAPIBody bounds the body of API requests.
const MaxAPIBody = 1 << 20

// ReadBody reads the request body up to limit bytes.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, apierr.New(http.StatusRequestEntityTooLarge, apierr.CodeBodyTooLarge,
				"request body is larger than %s, the limit for %s %s: send a smaller body", byteSize(limit), r.Method, r.URL.Path)
		}
		return nil, apierr.InvalidArgument("cannot read request body: %v", err)
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

// DecodeBody decodes a JSON object body of an API request (at most
// MaxAPIBody bytes) into dst. An empty body is an error when required is
// set and leaves dst untouched otherwise.
func DecodeBody(w http.ResponseWriter, r *http.Request, dst any, required bool) error {
	data, err := ReadBody(w, r, MaxAPIBody)
	if err != nil {
		return err
	}
	return DecodeJSON(data, dst, required)
}

// checkJSONBody refuses an empty body when one is required, and a body
// that is not UTF-8.
func checkJSONBody(data []byte, required bool) error {
	if len(bytes.TrimSpace(data)) == 0 {
		if required {
			return apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "request body is required: a JSON object")
		}
		return nil
	}
	if !utf8.Valid(data) {
		return apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "request body is not valid UTF-8")
	}
	return nil
}

// DecodeJSON decodes a JSON object into dst (see DecodeBody).
func DecodeJSON(data []byte, dst any, required bool) error {
	if err := checkJSONBody(data, required); err != nil || len(bytes.TrimSpace(data)) == 0 {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(dst); err != nil {
		return describeJSONError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "malformed JSON: unexpected data after the JSON object")
	}
	return nil
}

func describeJSONError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var own *apierr.Error
	switch {
	case errors.As(err, &own):
		return own
	case errors.As(err, &syn):
		return apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "request body must be a JSON object, not %s", typ.Value)
		}
		return apierr.InvalidArgument("field %q must be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "malformed JSON: unexpected end of input")
	default:
		return apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "malformed JSON: %v", err)
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
	MaxNameLen        = 255
	MaxDescriptionLen = 1024
)

// RequireName validates a required name field: present, not blank after
// trimming, at most MaxNameLen characters. The value is kept as given.
func RequireName(field string, v *string) (string, error) {
	if v == nil {
		return "", apierr.InvalidArgument("%q is required", field)
	}
	if strings.TrimSpace(*v) == "" {
		return "", apierr.InvalidArgument("%q must not be empty or blank", field)
	}
	if n := utf8.RuneCountInString(*v); n > MaxNameLen {
		return "", apierr.InvalidArgument("%q is %d characters long; at most %d are allowed", field, n, MaxNameLen)
	}
	return *v, nil
}

// OptionalDescription validates an optional description field.
func OptionalDescription(v *string) (string, error) {
	if v == nil {
		return "", nil
	}
	if n := utf8.RuneCountInString(*v); n > MaxDescriptionLen {
		return "", apierr.InvalidArgument("%q is %d characters long; at most %d are allowed", "description", n, MaxDescriptionLen)
	}
	return *v, nil
}

// SingleQuery returns the only value of a query parameter, whether it was
// present, or an error when it is repeated.
func SingleQuery(q url.Values, name string) (string, bool, error) {
	vs, ok := q[name]
	if !ok {
		return "", false, nil
	}
	if len(vs) > 1 {
		return "", true, apierr.InvalidArgument("query parameter %q is given %d times; give it at most once", name, len(vs))
	}
	return vs[0], true, nil
}

// RepeatedQuery returns the distinct values of a repeatable query parameter,
// in order, rejecting empty values.
func RepeatedQuery(q url.Values, name string) ([]string, error) {
	vs := q[name]
	out := make([]string, 0, len(vs))
	seen := make(map[string]bool, len(vs))
	for _, v := range vs {
		if v == "" {
			return nil, apierr.InvalidArgument("query parameter %q must not be empty", name)
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// DropConnection closes the client connection without answering.
func DropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// StatusWriter records the status code for request logs.
type StatusWriter struct {
	http.ResponseWriter
	Status int
}

func (w *StatusWriter) WriteHeader(code int) {
	if w.Status == 0 {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// RawList is a streamed `{"<key>": [...]}` body of pre-encoded items.
type RawList struct {
	Key   string
	Items [][]byte
}

// WriteJSON writes the list.
func (l RawList) WriteJSON(w *bufio.Writer) error {
	if _, err := w.WriteString(`{"` + l.Key + `":[`); err != nil {
		return err
	}
	for i, it := range l.Items {
		if i > 0 {
			if err := w.WriteByte(','); err != nil {
				return err
			}
		}
		if _, err := w.Write(it); err != nil {
			return err
		}
	}
	_, err := w.WriteString("]}\n")
	return err
}

// ReorderJSON writes the keys of every object of v in reverse order; v is
// returned unchanged when it is not valid JSON.
func ReorderJSON(v json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var buf bytes.Buffer
	if err := reorderValue(dec, &buf); err != nil {
		return v
	}
	return buf.Bytes()
}

func reorderValue(dec *json.Decoder, buf *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			buf.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := reorderValue(dec, buf); err != nil {
					return err
				}
			}
			buf.WriteByte(']')
			_, err := dec.Token()
			return err
		}
		type member struct{ key, val []byte }
		var members []member
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, err := json.Marshal(k)
			if err != nil {
				return err
			}
			var vb bytes.Buffer
			if err := reorderValue(dec, &vb); err != nil {
				return err
			}
			members = append(members, member{key, vb.Bytes()})
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		buf.WriteByte('{')
		for i := len(members) - 1; i >= 0; i-- {
			buf.Write(members[i].key)
			buf.WriteByte(':')
			buf.Write(members[i].val)
			if i > 0 {
				buf.WriteByte(',')
			}
		}
		buf.WriteByte('}')
		return nil
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
}
