package timeseries

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// The points_json value of zdm_timeseries, written as points stream in.

// pointsJSONBuilder writes streamed data points as one compact JSON array,
// the value of points_json, straight into a strings.Builder: no point is
// kept, and the text is not copied when the string is taken.
type pointsJSONBuilder struct {
	sb       strings.Builder
	n        int
	capacity int  // points expected, to size the builder
	sized    bool // the builder was grown to the estimate
	buf      bytes.Buffer
}

// pointsJSONSample is the number of points written before the builder is
// grown to the size their average predicts for capacity points.
const pointsJSONSample = 64

func newPointsJSONBuilder(capacity int) *pointsJSONBuilder {
	b := &pointsJSONBuilder{capacity: capacity}
	b.sb.Grow(256 * min(capacity, pointsJSONSample))
	b.sb.WriteByte('[')
	return b
}

func (b *pointsJSONBuilder) add(p client.DataPoint) error {
	if b.n > 0 {
		b.sb.WriteByte(',')
	}
	b.n++
	for i, v := range [...]string{p.TimestampDevice, p.TimestampIn, p.FleetID, p.DeviceID, p.Tag} {
		if i == 0 {
			b.sb.WriteString(`{"`)
		} else {
			b.sb.WriteString(`,"`)
		}
		b.sb.WriteString(pointFields[i])
		b.sb.WriteString(`":`)
		b.writeString(v)
	}
	b.sb.WriteString(`,"payload":`)
	b.writePayload(p.Payload)
	b.sb.WriteByte('}')
	if !b.sized && b.n == pointsJSONSample && b.capacity > b.n {
		// Grow once to the estimate (with 1/16 to spare) rather than
		// through the successive copies of appending.
		b.sized = true
		per := b.sb.Len() / b.n
		b.sb.Grow(per*(b.capacity-b.n) + per*b.capacity/16)
	}
	return nil
}

// writeString writes s as a JSON string.
func (b *pointsJSONBuilder) writeString(s string) {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		b.sb.WriteByte('"')
		b.sb.WriteString(s)
		b.sb.WriteByte('"')
		return
	}
	b.buf.Reset()
	enc := json.NewEncoder(&b.buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.sb.Write(bytes.TrimSuffix(b.buf.Bytes(), []byte{'\n'}))
}

// writePayload writes the payload as a compact JSON value, null when the
// point has none.
func (b *pointsJSONBuilder) writePayload(raw []byte) {
	if len(raw) == 0 {
		b.sb.WriteString("null")
		return
	}
	b.sb.Write(jsonvalue.Compact(raw, &b.buf))
}

// finish closes the array and returns the text. When far fewer points came
// than the estimate allowed for (max_points above what the service holds),
// the text is copied so that the unused room is not kept with it.
func (b *pointsJSONBuilder) finish() string {
	b.sb.WriteByte(']')
	s := b.sb.String()
	if b.sb.Cap()-len(s) > len(s)/4 {
		s = strings.Clone(s)
	}
	return s
}
