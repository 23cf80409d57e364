package client

import (
	"net/http"
	"sync"
	"time"
)

// serviceClock follows the service's clock through the Date header of its
// answers, so that times the service writes (created_at, scheduled_at) can
// be compared with moments of this machine without trusting that the two
// clocks agree.
//
// An answer with Date D, received at local time r, was dated by the service
// at some moment before r, and D is truncated to the second: so the offset
// (service time minus local time) is at least D - r. The clock keeps that
// lower bound from the latest answer that had a Date.
type serviceClock struct {
	mu     sync.Mutex
	known  bool
	offset time.Duration // lower bound of service time minus local time
}

// observe records the Date header value date of an answer received at
// local time received. Values that do not parse are ignored.
func (s *serviceClock) observe(date string, received time.Time) {
	if date == "" {
		return
	}
	d, err := http.ParseTime(date)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.known, s.offset = true, d.Sub(received)
	s.mu.Unlock()
}

// EarliestServiceTime returns the earliest time the service's clock can have
// shown at the local moment local, from the Date header of the latest answer
// that had one, and false when no answer had a Date yet. An object the
// service created after a request sent at local time local has a creation
// time at or after the returned time (to the precision of the service's
// clock; both clocks are assumed not to jump between the two moments).
func (c *Client) EarliestServiceTime(local time.Time) (time.Time, bool) {
	c.clock.mu.Lock()
	defer c.clock.mu.Unlock()
	if !c.clock.known {
		return time.Time{}, false
	}
	return local.Add(c.clock.offset), true
}
