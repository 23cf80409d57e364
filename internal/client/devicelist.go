package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The device list of a workspace is the largest answer of the service: a
// million devices are some 300 MB of JSON, read once by every plan of a
// configuration that manages them, while Terraform waits. encoding/json
// decodes it by reflection, field by field; decodeDeviceList reads it with
// a scanner made for its one shape, 3 to 5 times faster here
// (BenchmarkDecodeDeviceList), with encoding/json's meaning, which
// FuzzDecodeEnvelope holds it to:
//
//   - the answer is one JSON object; its first member named "devices" is
//     the list (null: empty), its other members are skipped, and nothing
//     but white space may follow it;
//   - an element is an object or null (a device with nothing set); a key
//     names a field when equal to its name, or equal under case folding;
//     the last of the same key wins, and null leaves a field as it was;
//   - a field of text takes a string and nothing else; "identities" keeps
//     its value as written;
//   - strings have their escapes decoded, and each byte that is not UTF-8
//     becomes U+FFFD, as does an escaped surrogate that is not one of a
//     pair.
//
// The five fields of a device's place repeat for every device of a fleet:
// they are read once per distinct value (see scanner.interned).

// scanBufferSize is the scanner's read buffer.
const scanBufferSize = 64 << 10

// maxScanDepth is the deepest nesting the scanner skips (encoding/json's
// limit).
const maxScanDepth = 10000

// errScanEnd is the end of the answer inside a value.
var errScanEnd = io.ErrUnexpectedEOF

// scanSyntaxError is an answer that is not JSON.
type scanSyntaxError struct {
	offset int64
	msg    string
}

func (e *scanSyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.offset, e.msg)
}

// scanner reads JSON from r through a buffer.
type scanner struct {
	r        io.Reader
	buf      []byte
	pos, end int   // the unread bytes are buf[pos:end]
	offset   int64 // bytes read before buf[0]
	rerr     error // the reader's error, once met

	// capturing appends the bytes read from capFrom on to captured (a raw
	// value), before they leave the buffer.
	capturing bool
	capFrom   int
	captured  []byte

	scratch []byte            // a string being unescaped
	intern  map[string]string // repeated texts, by value
}

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBufferSize), intern: map[string]string{}}
}

// newBytesScanner reads data, which it never modifies; it shares no text.
func newBytesScanner(data []byte) *scanner {
	return &scanner{buf: data, end: len(data), rerr: io.EOF}
}

// fill reads more into the buffer, keeping the unread bytes; it reports
// whether any came.
func (s *scanner) fill() bool {
	if s.rerr != nil {
		return false
	}
	if s.capturing {
		s.captured = append(s.captured, s.buf[s.capFrom:s.pos]...)
		s.capFrom = 0
	}
	n := copy(s.buf, s.buf[s.pos:s.end])
	s.offset += int64(s.pos)
	s.pos, s.end = 0, n
	for empty := 0; s.end < len(s.buf); empty++ {
		m, err := s.r.Read(s.buf[s.end:])
		s.end += m
		if err != nil {
			s.rerr = err
			break
		}
		if m > 0 {
			break
		}
		if empty == 100 { // as bufio does with a reader that gives nothing
			s.rerr = io.ErrNoProgress
			break
		}
	}
	return s.end > n
}

// ensure makes at least n unread bytes available, if the answer has them.
func (s *scanner) ensure(n int) {
	for s.end-s.pos < n && s.fill() {
	}
}

// endError is the error of an answer that ended inside a value.
func (s *scanner) endError() error {
	if s.rerr != nil && s.rerr != io.EOF {
		return s.rerr
	}
	return errScanEnd
}

// syntax returns a syntax error at the current byte.
func (s *scanner) syntax(format string, args ...any) error {
	return &scanSyntaxError{offset: s.offset + int64(s.pos), msg: fmt.Sprintf(format, args...)}
}

// skipSpace moves past white space and returns the next byte (false at the
// end).
func (s *scanner) skipSpace() (byte, bool) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, true
			}
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// next returns the next byte after white space, which must be there.
func (s *scanner) next() (byte, error) {
	c, ok := s.skipSpace()
	if !ok {
		return 0, s.endError()
	}
	return c, nil
}

// expect consumes the next byte after white space, which must be c.
func (s *scanner) expect(c byte) error {
	got, err := s.next()
	if err != nil {
		return err
	}
	if got != c {
		return s.syntax("%q where %q was expected", got, c)
	}
	s.pos++
	return nil
}

// literal consumes the literal word (true, false or null) at the current
// byte.
func (s *scanner) literal(word string) error {
	s.ensure(len(word))
	if s.end-s.pos < len(word) || string(s.buf[s.pos:s.pos+len(word)]) != word {
		if s.end-s.pos < len(word) && strings.HasPrefix(word, string(s.buf[s.pos:s.end])) {
			return s.endError()
		}
		return s.syntax("not the literal %s", word)
	}
	s.pos += len(word)
	return nil
}

// stringBytes reads the string at the current byte (its opening quote) and
// returns its text, valid until the next read.
func (s *scanner) stringBytes() ([]byte, error) {
	s.pos++ // the opening quote
	// The common case: no escape, no byte outside ASCII, all in the buffer.
	for i := s.pos; i < s.end; i++ {
		c := s.buf[i]
		if c == '"' {
			text := s.buf[s.pos:i]
			s.pos = i + 1
			return text, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	out := s.scratch[:0]
	defer func() { s.scratch = out[:0] }()
	for {
		i := s.pos
		for i < s.end {
			c := s.buf[i]
			if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				break
			}
			i++
		}
		out = append(out, s.buf[s.pos:i]...)
		s.pos = i
		if i == s.end {
			if !s.fill() {
				return nil, s.endError()
			}
			continue
		}
		switch c := s.buf[i]; {
		case c == '"':
			s.pos++
			return out, nil
		case c < 0x20:
			return nil, s.syntax("control character %#02x in a string", c)
		case c == '\\':
			var err error
			if out, err = s.escape(out); err != nil {
				return nil, err
			}
		default:
			s.ensure(utf8.UTFMax)
			r, size := utf8.DecodeRune(s.buf[s.pos:s.end])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s.buf[s.pos:s.pos+size]...)
			}
			s.pos += size
		}
	}
}

// escape decodes the escape at the current byte (a backslash) onto out.
func (s *scanner) escape(out []byte) ([]byte, error) {
	s.ensure(2)
	if s.end-s.pos < 2 {
		return nil, s.endError()
	}
	c := s.buf[s.pos+1]
	switch c {
	case '"', '\\', '/':
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		c = 0
	default:
		return nil, s.syntax("invalid escape %q in a string", c)
	}
	if c != 0 {
		s.pos += 2
		return append(out, c), nil
	}
	r, err := s.u4()
	if err != nil {
		return nil, err
	}
	s.pos += 6
	if utf16.IsSurrogate(r) {
		// A pair when the next escape completes it; otherwise U+FFFD, and
		// the next escape is read on its own.
		s.ensure(6)
		if s.end-s.pos >= 6 && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
			if r2, err := s.u4(); err == nil {
				if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
					s.pos += 6
					return utf8.AppendRune(out, pair), nil
				}
			}
		}
		r = utf8.RuneError
	}
	return utf8.AppendRune(out, r), nil
}

// u4 reads the four hex digits of the \u escape at the current byte.
func (s *scanner) u4() (rune, error) {
	s.ensure(6)
	if s.end-s.pos < 6 {
		for i := s.pos + 2; i < s.end; i++ {
			if !isHex(s.buf[i]) {
				return 0, s.syntax("invalid \\u escape in a string")
			}
		}
		return 0, s.endError()
	}
	var r rune
	for _, c := range s.buf[s.pos+2 : s.pos+6] {
		if !isHex(c) {
			return 0, s.syntax("invalid \\u escape in a string")
		}
		r = r<<4 | rune(hexValue(c))
	}
	return r, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

// str reads a string as a new string.
func (s *scanner) str() (string, error) {
	b, err := s.stringBytes()
	return string(b), err
}

// interned reads a string, sharing one copy of each value read this way.
func (s *scanner) interned() (string, error) {
	b, err := s.stringBytes()
	if err != nil || s.intern == nil {
		return string(b), err
	}
	if v, ok := s.intern[string(b)]; ok {
		return v, nil
	}
	v := string(b)
	s.intern[v] = v
	return v, nil
}

// skip reads past the value at the current byte, checking its syntax.
func (s *scanner) skip() error {
	var open []byte // the closing brackets of the containers read into
	for {
		c, err := s.next()
		if err != nil {
			return err
		}
		switch {
		case c == '{' || c == '[':
			if len(open) == maxScanDepth {
				return s.syntax("nested deeper than %d", maxScanDepth)
			}
			close := byte(']')
			if c == '{' {
				close = '}'
			}
			empty, err := s.enter(close)
			if err != nil {
				return err
			}
			if empty {
				break
			}
			open = append(open, close)
			if c == '{' {
				if err := s.skipKey(); err != nil {
					return err
				}
			}
			continue
		case c == '"':
			_, err = s.stringBytes()
		case c == 't':
			err = s.literal("true")
		case c == 'f':
			err = s.literal("false")
		case c == 'n':
			err = s.literal("null")
		case c == '-' || '0' <= c && c <= '9':
			err = s.number()
		default:
			return s.syntax("%q where a value was expected", c)
		}
		if err != nil {
			return err
		}
		// After a value: the next of its container, or its end.
		for len(open) > 0 {
			top := open[len(open)-1]
			more, err := s.after(top, "a value")
			if err != nil {
				return err
			}
			if !more {
				open = open[:len(open)-1]
				continue
			}
			if top == '}' {
				if err := s.skipKey(); err != nil {
					return err
				}
			}
			break
		}
		if len(open) == 0 {
			return nil
		}
	}
}

// key reads the key of a member, valid until the next read (the colon
// after it is the caller's to read, once done with the key).
func (s *scanner) key() ([]byte, error) {
	c, err := s.next()
	if err != nil {
		return nil, err
	}
	if c != '"' {
		return nil, s.syntax("%q where a key was expected", c)
	}
	return s.stringBytes()
}

// skipKey reads past the key of a member and its colon.
func (s *scanner) skipKey() error {
	if _, err := s.key(); err != nil {
		return err
	}
	return s.expect(':')
}

// enter moves past the opening bracket at the current byte, and reports
// whether close follows it at once (an empty object or array, then read
// whole).
func (s *scanner) enter(close byte) (bool, error) {
	s.pos++
	c, err := s.next()
	if err != nil || c != close {
		return false, err
	}
	s.pos++
	return true, nil
}

// after reads what follows a member or element (what names it, for the
// message): a comma, when more follow (true), or close, the end of its
// container (false).
func (s *scanner) after(close byte, what string) (bool, error) {
	c, err := s.next()
	if err != nil {
		return false, err
	}
	switch c {
	case ',':
		s.pos++
		return true, nil
	case close:
		s.pos++
		return false, nil
	}
	return false, s.syntax("%q after %s", c, what)
}

// number reads past a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	peek := func() (byte, bool) {
		if s.pos == s.end && !s.fill() {
			return 0, false
		}
		return s.buf[s.pos], true
	}
	digits := func(atLeastOne bool) error {
		n := 0
		for {
			c, ok := peek()
			if !ok || c < '0' || c > '9' {
				break
			}
			s.pos++
			n++
		}
		if atLeastOne && n == 0 {
			if _, ok := peek(); !ok {
				return s.endError()
			}
			return s.syntax("a digit was expected in a number")
		}
		return nil
	}
	if c, _ := peek(); c == '-' {
		s.pos++
	}
	c, ok := peek()
	switch {
	case !ok:
		return s.endError()
	case c == '0':
		s.pos++
	case '1' <= c && c <= '9':
		_ = digits(true)
	default:
		return s.syntax("a digit was expected in a number")
	}
	if c, ok := peek(); ok && c == '.' {
		s.pos++
		if err := digits(true); err != nil {
			return err
		}
	}
	if c, ok := peek(); ok && (c == 'e' || c == 'E') {
		s.pos++
		if c, ok := peek(); ok && (c == '+' || c == '-') {
			s.pos++
		}
		if err := digits(true); err != nil {
			return err
		}
	}
	return nil
}

// raw reads the value at the current byte as it is written.
func (s *scanner) raw() ([]byte, error) {
	if _, err := s.next(); err != nil {
		return nil, err
	}
	s.capturing, s.capFrom, s.captured = true, s.pos, nil
	err := s.skip()
	out := append(s.captured, s.buf[s.capFrom:s.pos]...)
	s.capturing, s.captured = false, nil
	return out, err
}

// deviceField is the field of deviceJSON a key names (-1: none).
func deviceField(key []byte) int {
	for i, name := range deviceFieldNames {
		if string(key) == name {
			return i
		}
	}
	for i, name := range deviceFieldBytes {
		if bytes.EqualFold(key, name) {
			return i
		}
	}
	return -1
}

var deviceFieldBytes = func() [len(deviceFieldNames)][]byte {
	var out [len(deviceFieldNames)][]byte
	for i, name := range deviceFieldNames {
		out[i] = []byte(name)
	}
	return out
}()

var deviceFieldNames = [...]string{"id", "name", "account_id", "fleet_id", "fleet_name", "workspace_id",
	"workspace_name", "created_at", "phys_id", "identities"}

// device reads the element at the current byte into w.
func (s *scanner) device(w *deviceJSON) error {
	c, err := s.next()
	if err != nil {
		return err
	}
	if c == 'n' {
		return s.literal("null")
	}
	switch c {
	case '{':
	case '"', '[', 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return fmt.Errorf("a device of the list is %s, not an object", describeByte(c))
	default:
		return s.syntax("%q where a device was expected", c)
	}
	if empty, err := s.enter('}'); err != nil || empty {
		return err
	}
	texts := [...]*string{&w.ID, &w.Name, &w.AccountID, &w.FleetID, &w.FleetName, &w.WorkspaceID,
		&w.WorkspaceName, &w.CreatedAt, &w.PhysID}
	for {
		key, err := s.key()
		if err != nil {
			return err
		}
		field := deviceField(key)
		if err := s.expect(':'); err != nil {
			return err
		}
		c, err := s.next()
		if err != nil {
			return err
		}
		switch {
		case field < 0:
			err = s.skip()
		case field == len(texts):
			w.Identities, err = s.raw()
		case c == 'n':
			err = s.literal("null")
		case c != '"':
			return fmt.Errorf("the %q of a device of the list is %s, not a string", deviceFieldNames[field], describeByte(c))
		case field >= 2 && field <= 6:
			*texts[field], err = s.interned()
		default:
			*texts[field], err = s.str()
		}
		if err != nil {
			return err
		}
		if more, err := s.after('}', "a member"); err != nil || !more {
			return err
		}
	}
}

// describeByte names the JSON value that starts with c.
func describeByte(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// decodeDeviceList reads the device list answer from r (size: its length
// when known, to size the slice once), making each device with conv as it
// is read.
func decodeDeviceList(r io.Reader, size int64, conv func(*deviceJSON) Device) ([]Device, error) {
	return decodeDeviceListKeeping(r, size, nil, conv)
}

// decodeDeviceListKeeping is decodeDeviceList keeping only the devices
// that keep accepts (nil: all): the others are decoded, so the answer is
// checked whole, and dropped at once, so that the memory held is that of
// the devices kept, whatever the size of the answer.
func decodeDeviceListKeeping(r io.Reader, size int64, keep func(*deviceJSON) bool, conv func(*deviceJSON) Device) ([]Device, error) {
	s := newScanner(r)
	var out []Device
	err := s.envelope("devices", func() error {
		var err error
		out, err = s.devices(size, keep, conv)
		return err
	})
	return out, err
}

// decodeDeviceAnswer reads the answer data about one device, in its member
// "device"; nil when the member is null.
func decodeDeviceAnswer(data []byte) (*Device, error) {
	s := newBytesScanner(data)
	var out *Device
	err := s.envelope("device", func() error {
		c, err := s.next()
		if err != nil {
			return err
		}
		if c == 'n' {
			return s.literal("null")
		}
		var w deviceJSON
		if err := s.device(&w); err != nil {
			return err
		}
		d := ownPlace(&w)
		out = &d
		return nil
	})
	return out, err
}

// ownPlace makes the device w with a Place of its own.
func ownPlace(w *deviceJSON) Device {
	p := w.place()
	return w.device(&p)
}

// envelope reads the answer: one JSON object, whose first member named
// member read reads; its other members are skipped, and nothing but white
// space may follow it.
func (s *scanner) envelope(member string, read func() error) error {
	c, ok := s.skipSpace()
	if !ok {
		return s.endError()
	}
	if c != '{' {
		return fmt.Errorf("the answer is not a JSON object but %s", describeByte(c))
	}
	empty, err := s.enter('}')
	if err != nil {
		return err
	}
	found := false
	for more := !empty; more; {
		key, err := s.key()
		if err != nil {
			return err
		}
		mine := !found && string(key) == member
		if err := s.expect(':'); err != nil {
			return err
		}
		if mine {
			found = true
			err = read()
		} else {
			err = s.skip()
		}
		if err != nil {
			return err
		}
		if more, err = s.after('}', "a member"); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("the answer has no %q member", member)
	}
	if _, more := s.skipSpace(); more {
		return errors.New("unexpected data after the JSON object")
	}
	if s.rerr != nil && s.rerr != io.EOF {
		return s.rerr
	}
	return nil
}

// devices reads the array of devices at the current byte, keeping those
// that keep accepts (nil: all). The answer's size sizes the slice only when
// all are kept.
func (s *scanner) devices(size int64, keep func(*deviceJSON) bool, conv func(*deviceJSON) Device) ([]Device, error) {
	c, err := s.next()
	if err != nil {
		return nil, err
	}
	if c == 'n' {
		return nil, s.literal("null")
	}
	if c != '[' {
		return nil, fmt.Errorf("the \"devices\" member is %s, not an array", describeByte(c))
	}
	var out []Device
	if empty, err := s.enter(']'); err != nil || empty {
		return out, err
	}
	w := new(deviceJSON) // one for all: conv copies what it keeps
	for {
		start := s.offset + int64(s.pos)
		*w = deviceJSON{}
		if err := s.device(w); err != nil {
			return nil, err
		}
		if keep == nil || keep(w) {
			if out == nil && size > 0 && keep == nil {
				out = make([]Device, 0, size/max(s.offset+int64(s.pos)-start, 1)+1)
			}
			out = append(out, conv(w))
		}
		more, err := s.after(']', "a device")
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
	}
}
