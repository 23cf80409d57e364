package protoval

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// The protocol's MessagePack encoding of plain values, written and read
// directly: a large value (a map of a hundred thousand devices) costs one
// Go value per element instead of a tftypes.Value per element, per
// attribute and per object, and the same again to encode them.
//
// The encoding is the one Terraform's type system uses: an object is a
// map from attribute names to values, a map a map from keys to values,
// null is nil and an unknown value is an extension (any extension reads as
// unknown, as Terraform's own reader does).
//
// A Reader accepts only the plainest forms of each value. It answers
// ErrUnusual for anything else (a number that is not a small integer, for
// example), and its caller then reads the same bytes with tftypes, which
// knows every form: the fast path never decides what a value means on its
// own.

// ErrUnusual reports a value the Reader leaves to tftypes.
var ErrUnusual = errors.New("a value in a form the direct reader leaves to tftypes")

// unknownBytes is the unknown value as tftypes writes it.
var unknownBytes = []byte{0xd4, 0, 0}

// Writer writes a value in the protocol's MessagePack encoding.
type Writer struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
	err error
}

// NewWriter returns a writer with room for about size bytes.
func NewWriter(size int) *Writer {
	w := &Writer{}
	w.buf.Grow(size)
	w.enc = msgpack.NewEncoder(&w.buf)
	return w
}

// Bytes returns what was written, or the first error.
func (w *Writer) Bytes() ([]byte, error) { return w.buf.Bytes(), w.err }

func (w *Writer) keep(err error) {
	if w.err == nil && err != nil {
		w.err = err
	}
}

// ObjectStart starts an object of n attributes; each attribute is a Key
// then its value.
func (w *Writer) ObjectStart(n int) { w.keep(w.enc.EncodeMapLen(n)) }

// Key writes an attribute name or a map key.
func (w *Writer) Key(k string) { w.keep(w.enc.EncodeString(k)) }

// Unknown writes an unknown value.
func (w *Writer) Unknown() {
	_, err := w.buf.Write(unknownBytes)
	w.keep(err)
}

// Null writes a null value.
func (w *Writer) Null() { w.keep(w.enc.EncodeNil()) }

// known writes an unknown or null value and reports false, or reports
// true for a known value, which the caller writes.
func (w *Writer) known(null, unknown bool) bool {
	switch {
	case unknown:
		w.Unknown()
		return false
	case null:
		w.Null()
		return false
	}
	return true
}

// MapStart starts a known map of n elements; each element is a Key then
// its value. It reports whether the caller writes the elements: false when
// the map was null or unknown and has been written.
func (w *Writer) MapStart(n int, null, unknown bool) bool {
	if !w.known(null, unknown) {
		return false
	}
	w.keep(w.enc.EncodeMapLen(n))
	return true
}

// String writes a string value.
func (w *Writer) String(p String) {
	if w.known(p.Null, p.Unknown) {
		w.keep(w.enc.EncodeString(p.S))
	}
}

// Int writes a number value holding an integer.
func (w *Writer) Int(p Int) {
	if w.known(p.Null, p.Unknown) {
		w.keep(w.enc.EncodeInt(p.N))
	}
}

// Bool writes a bool value.
func (w *Writer) Bool(p Bool) {
	if w.known(p.Null, p.Unknown) {
		w.keep(w.enc.EncodeBool(p.B))
	}
}

// StringMap writes a map(string) value.
func (w *Writer) StringMap(p StringMap) {
	if !w.MapStart(len(p.M), p.Null, p.Unknown) {
		return
	}
	for k, s := range p.M {
		w.Key(k)
		w.String(s)
	}
}

// Reader reads a value in the protocol's MessagePack encoding.
type Reader struct {
	dec *msgpack.Decoder
}

// NewReader reads b.
func NewReader(b []byte) *Reader {
	return &Reader{dec: msgpack.NewDecoder(bytes.NewReader(b))}
}

// state reads a null or unknown value: it reports whether the value is
// null or unknown (and consumed).
func (r *Reader) state() (null, unknown bool, err error) {
	c, err := r.dec.PeekCode()
	if err != nil {
		return false, false, err
	}
	switch {
	case msgpcode.IsExt(c):
		return false, true, r.dec.Skip()
	case c == msgpcode.Nil:
		return true, false, r.dec.Skip()
	}
	return false, false, nil
}

// Len reads the start of a known map or object and returns its number of
// elements, or -1 when the value was null and -2 when it was unknown.
func (r *Reader) Len() (int, error) {
	null, unknown, err := r.state()
	switch {
	case err != nil:
		return 0, err
	case unknown:
		return -2, nil
	case null:
		return -1, nil
	}
	c, err := r.dec.PeekCode()
	if err != nil {
		return 0, err
	}
	if !msgpcode.IsFixedMap(c) && c != msgpcode.Map16 && c != msgpcode.Map32 {
		return 0, ErrUnusual
	}
	return r.dec.DecodeMapLen()
}

// Key reads an attribute name or a map key.
func (r *Reader) Key() (string, error) { return r.plainString() }

func (r *Reader) plainString() (string, error) {
	c, err := r.dec.PeekCode()
	if err != nil {
		return "", err
	}
	if !msgpcode.IsFixedString(c) && c != msgpcode.Str8 && c != msgpcode.Str16 && c != msgpcode.Str32 {
		return "", ErrUnusual
	}
	return r.dec.DecodeString()
}

// String reads a string value.
func (r *Reader) String() (String, error) {
	null, unknown, err := r.state()
	switch {
	case err != nil:
		return String{}, err
	case unknown:
		return UnknownString, nil
	case null:
		return NullString, nil
	}
	s, err := r.plainString()
	return KnownString(s), err
}

// Int reads a number value written as an integer.
func (r *Reader) Int() (Int, error) {
	null, unknown, err := r.state()
	switch {
	case err != nil:
		return Int{}, err
	case unknown:
		return Int{Unknown: true}, nil
	case null:
		return Int{Null: true}, nil
	}
	c, err := r.dec.PeekCode()
	if err != nil {
		return Int{}, err
	}
	switch {
	case msgpcode.IsFixedNum(c), c == msgpcode.Int8, c == msgpcode.Int16, c == msgpcode.Int32, c == msgpcode.Int64,
		c == msgpcode.Uint8, c == msgpcode.Uint16, c == msgpcode.Uint32:
		n, err := r.dec.DecodeInt64()
		return Int{N: n}, err
	}
	return Int{}, ErrUnusual
}

// Bool reads a bool value.
func (r *Reader) Bool() (Bool, error) {
	null, unknown, err := r.state()
	switch {
	case err != nil:
		return Bool{}, err
	case unknown:
		return Bool{Unknown: true}, nil
	case null:
		return Bool{Null: true}, nil
	}
	b, err := r.dec.DecodeBool()
	return Bool{B: b}, err
}

// StringMap reads a map(string) value.
func (r *Reader) StringMap() (StringMap, error) {
	n, err := r.Len()
	switch {
	case err != nil:
		return StringMap{}, err
	case n == -2:
		return StringMap{Unknown: true}, nil
	case n == -1:
		return StringMap{Null: true}, nil
	}
	m := make(map[string]String, n)
	for range n {
		k, err := r.Key()
		if err != nil {
			return StringMap{}, err
		}
		if m[k], err = r.String(); err != nil {
			return StringMap{}, fmt.Errorf("element %q: %w", k, err)
		}
	}
	return StringMap{M: m}, nil
}

// End reports an error unless every byte was read.
func (r *Reader) End() error {
	if _, err := r.dec.PeekCode(); err == nil {
		return ErrUnusual
	}
	return nil
}
